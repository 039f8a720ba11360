package io.taskfence.api.tasks;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.taskfence.api.Delay;

/** A submission's {@code dedupe} (DESIGN.md, "Submission", "Dedupe"); {@link NewTasks} checks how its fields combine. */
@Schema(name = "Dedupe", description = "a key (of the submitting API key and the task's type) that holds the task it "
        + "made until that task starts: a submission with the key meanwhile makes no task but answers that one (200), "
        + "after ignore-ing it (unchanged), replace-ing it (this payload, runAt and priority) or debounce-ing it (this "
        + "payload, runAt moved to now + period, never past its first submission + maxWait). Once the task has started, "
        + "the key makes a new task. Not with an Idempotency-Key, dependsOn, dependsOnItems or a batch")
public record DedupeRequest(
        @NotNull @Pattern(regexp = NewTasks.IDEMPOTENCY_KEY, message = NewTasks.IDEMPOTENCY_KEY_RULE)
        @Schema(description = "the key, e.g. what the task is about", examples = "sync-customer-17")
        String key,

        @NotNull @Pattern(regexp = "ignore|replace|debounce", message = "must be ignore, replace or debounce")
        @Schema(description = "what a submission with the key does to the unstarted task it holds",
                enumeration = { "ignore", "replace", "debounce" })
        String mode,

        @Pattern(regexp = Delay.SPAN_PATTERN, message = NewTasks.SPAN_RULE)
        @Schema(description = "debounce only, and required there: the task runs this long after the last submission, "
                + "<n>ms, <n>s, <n>m or <n>h, at most 24h", examples = "5s")
        String period,

        @Pattern(regexp = Delay.SPAN_PATTERN, message = NewTasks.SPAN_RULE)
        @Schema(description = "debounce only: the task runs at the latest this long after the first submission, "
                + "however many follow; at least period, at most 24h; no bound when absent", examples = "1m")
        String maxWait) {
}

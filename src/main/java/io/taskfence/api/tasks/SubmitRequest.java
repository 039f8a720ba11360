package io.taskfence.api.tasks;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.api.Delay;
import io.taskfence.api.SubmissionChecks;
import io.taskfence.task.submit.NewTask;

/** The body of {@code POST /api/v1/tasks}. {@link BulkTask} has the same fields and constraints. */
@Schema(name = "SubmitTask")
public record SubmitRequest(
        @NotNull @Pattern(regexp = SubmissionChecks.TYPE, message = SubmissionChecks.TYPE_RULE)
        @Schema(description = "a registered task type", examples = "noop")
        String type,

        @NotNull
        @Schema(description = "a JSON object of at most 64 KiB, handed to the handler", examples = "{\"ms\": 100}",
                implementation = ObjectNode.class) // a JsonNode here, so that SubmissionChecks words a refusal
        JsonNode payload,

        @Min(1) @Max(100)
        @Schema(description = "attempts before the task is DEAD; taskfence.retry.max-attempts when absent")
        Integer maxAttempts,

        @Schema(description = "not before this instant (ISO-8601); now when absent")
        Instant runAt,

        @Min(-1000) @Max(1000)
        @Schema(description = "higher runs first among the key's own tasks (dispatch shares between keys first); "
                + "at most the key's max-priority; 0 when absent")
        Integer priority,

        @Schema(description = "the task is DEAD if not done by this instant (ISO-8601)")
        Instant deadline,

        @Pattern(regexp = NewTasks.CONCURRENCY_KEY, message = NewTasks.CONCURRENCY_KEY_RULE)
        @Schema(description = "the task's concurrency group within its type and the submitting key (e.g. a customer "
                + "id): the type's max-per-key bounds how many of one group run at once, taken in submission order",
                examples = "customer-17")
        String concurrencyKey,

        @Size(max = NewTask.Dependencies.MAX, message = "must name at most " + NewTask.Dependencies.MAX + " tasks")
        @Schema(description = "ids of this key's tasks to wait for: the task is WAITING until every one of them has "
                + "SUCCEEDED (see onDependencyFailure for one that ends DEAD or CANCELLED)")
        List<@NotNull UUID> dependsOn,

        @Pattern(regexp = "cancel|run", message = "must be 'cancel' or 'run'")
        @Schema(description = "when a task it depends on ends DEAD or CANCELLED: 'cancel' (the default) cancels this "
                + "task too, 'run' runs it once all of them have ended", enumeration = { "cancel", "run" })
        String onDependencyFailure,

        @Valid
        @Schema(description = "where Taskfence POSTs the task's view each time it ends (SUCCEEDED, DEAD or CANCELLED), "
                + "through a task of the built-in type callback")
        CallbackRequest callback,

        @Pattern(regexp = Delay.PATTERN, message = SubmissionChecks.TIMEOUT_RULE)
        @Schema(description = "how long each attempt may take, <n>s or <n>ms: a local handler is then interrupted, a "
                + "remote worker's claim superseded, and the attempt fails 'timed out after ...' (retried as any "
                + "failure); capped at the type's timeout, which applies when absent", examples = "30s")
        String timeout,

        @Valid
        @Schema(description = "the task's dedupe key and mode: a submission with the key answers the unstarted task "
                + "the key holds instead of making one")
        Dedupe dedupe) {

    /** A submission's {@code dedupe} (DESIGN.md, "Submission", "Dedupe"); {@link NewTasks} checks how its fields combine. */
    @Schema(name = "Dedupe", description = "a key (of the submitting API key and the task's type) that holds the task it "
            + "made until that task starts: a submission with the key meanwhile makes no task but answers that one (200), "
            + "after ignore-ing it (unchanged), replace-ing it (this payload, runAt and priority) or debounce-ing it (this "
            + "payload, runAt moved to now + period, never past its first submission + maxWait). Once the task has started, "
            + "the key makes a new task. Not with an Idempotency-Key, dependsOn, dependsOnItems or a batch")
    public record Dedupe(
            @NotNull @Pattern(regexp = SubmissionChecks.DEDUPE_KEY, message = SubmissionChecks.DEDUPE_KEY_RULE)
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
                    + "however many follow; at least period, at most 24h; 24h when absent", examples = "1m")
            String maxWait) {
    }
}

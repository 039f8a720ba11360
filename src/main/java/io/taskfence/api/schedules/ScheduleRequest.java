package io.taskfence.api.schedules;

import java.util.Locale;

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

/** The body of {@code POST /api/v1/schedules} (DESIGN.md, "REST API", "Schedules"). */
@Schema(name = "NewSchedule")
public record ScheduleRequest(
        @NotNull @Pattern(regexp = SubmissionChecks.TYPE, message = SubmissionChecks.TYPE_RULE)
        @Schema(description = "unique; part of each task's idempotency key", examples = "nightly-report")
        String name,

        @NotNull @Size(min = 1, max = MAX_CRON, message = CRON_RULE)
        @Schema(description = "Unix (5 fields) or Quartz (6 or 7, seconds first)", examples = "0 3 * * *")
        String cron,

        @Pattern(regexp = CRON_TYPES, message = CRON_TYPES_RULE)
        @Schema(description = "unix or quartz; by the number of fields when absent (5: unix, 6 or 7: quartz)")
        String cronType,

        @Size(min = 1, max = MAX_ZONE, message = ZONE_RULE)
        @Schema(description = "the time zone the expression is read in (IANA id); UTC when absent",
                examples = "Europe/Berlin")
        String zone,

        @NotNull @Pattern(regexp = SubmissionChecks.TYPE, message = SubmissionChecks.TYPE_RULE)
        @Schema(description = "a registered task type", examples = "noop")
        String type,

        @NotNull
        @Schema(description = "a JSON object of at most 64 KiB, each task's payload", examples = "{}",
                implementation = ObjectNode.class) // a JsonNode here, so that SubmissionChecks words a refusal
        JsonNode payload,

        @Min(-1000) @Max(1000)
        @Schema(description = "each task's priority; 0 when absent")
        Integer priority,

        @Min(1) @Max(100)
        @Schema(description = "each task's attempts; taskfence.retry.max-attempts when absent")
        Integer maxAttempts,

        @Schema(description = "a paused schedule makes no tasks; false when absent")
        Boolean paused,

        @Pattern(regexp = MISFIRES, message = MISFIRES_RULE)
        @Schema(description = "skip (missed occurrences are not run) or once (one task for them all); skip when absent")
        String misfire,

        @Valid
        @Schema(description = "a dedupe key its tasks are submitted with: an occurrence makes no task while the key "
                + "holds one that has not started; none when absent")
        Dedupe dedupe,

        @Pattern(regexp = Delay.PATTERN, message = SubmissionChecks.TIMEOUT_RULE)
        @Schema(description = "how long each attempt of its tasks may take, <n>s or <n>ms, as a submission's timeout "
                + "(capped at the type's); the type's when absent", examples = "30s")
        String timeout) {

    /** A schedule's {@code dedupe}: a task submission's, without debounce (its tasks run at their occurrences). */
    @Schema(name = "ScheduleDedupe", description = "while the key holds a task that has not started, an occurrence "
            + "makes none: ignore leaves that task, replace gives it the occurrence's runAt (and the schedule's "
            + "payload and priority); none (in a change) removes the schedule's dedupe")
    public record Dedupe(
            @Pattern(regexp = SubmissionChecks.DEDUPE_KEY, message = SubmissionChecks.DEDUPE_KEY_RULE)
            @Schema(description = "the key, shared with submissions of the same API key and type that send it; "
                    + "schedule:<name> when absent", examples = "nightly-report")
            String key,

            @NotNull @Pattern(regexp = "ignore|replace|none", message = "must be ignore, replace or none")
            @Schema(enumeration = { "ignore", "replace", "none" })
            String mode) {

        /** The dedupe of schedule {@code name}'s tasks; null for {@code none}. */
        NewTask.Dedupe of(String name) {
            return "none".equals(mode) ? null : new NewTask.Dedupe(key == null ? "schedule:" + name : key,
                    NewTask.Dedupe.Mode.valueOf(mode.toUpperCase(Locale.ROOT)), null, null);
        }
    }

    static final int MAX_CRON = 200;
    static final String CRON_RULE = "must be 1 to " + MAX_CRON + " characters";
    static final String CRON_TYPES = "unix|quartz";
    static final String CRON_TYPES_RULE = "must be unix or quartz";
    static final int MAX_ZONE = 64;
    static final String ZONE_RULE = "must be an IANA time zone id of 1 to " + MAX_ZONE + " characters";
    static final String MISFIRES = "skip|once";
    static final String MISFIRES_RULE = "must be skip or once";
}

package io.taskfence.api.schedules;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.api.Delay;
import io.taskfence.api.SubmissionChecks;

/**
 * The body of {@code PATCH /api/v1/schedules/{name}}: the fields to change, as {@link ScheduleRequest} has
 * them; a field absent (or null) stays as it is. The name cannot change.
 */
@Schema(name = "ScheduleChanges")
public record SchedulePatch(
        @Size(min = 1, max = ScheduleRequest.MAX_CRON, message = ScheduleRequest.CRON_RULE)
        String cron,

        @Pattern(regexp = ScheduleRequest.CRON_TYPES, message = ScheduleRequest.CRON_TYPES_RULE)
        @Schema(description = "when absent and cron changes: by the number of its fields")
        String cronType,

        @Size(min = 1, max = ScheduleRequest.MAX_ZONE, message = ScheduleRequest.ZONE_RULE)
        String zone,

        @Pattern(regexp = SubmissionChecks.TYPE, message = SubmissionChecks.TYPE_RULE)
        String type,

        @Schema(description = "a JSON object of at most 64 KiB, each task's payload from now on",
                implementation = ObjectNode.class) // a JsonNode here, so that SubmissionChecks words a refusal
        JsonNode payload,

        @Min(-1000) @Max(1000)
        Integer priority,

        @Min(1) @Max(100)
        Integer maxAttempts,

        @Schema(description = "true pauses; false resumes from the next occurrence after now")
        Boolean paused,

        @Pattern(regexp = ScheduleRequest.MISFIRES, message = ScheduleRequest.MISFIRES_RULE)
        String misfire,

        @Valid
        @Schema(description = "the dedupe its tasks are submitted with from now on; mode none removes it")
        ScheduleRequest.Dedupe dedupe,

        @Pattern(regexp = Delay.PATTERN + "|none", message = SubmissionChecks.TIMEOUT_RULE + ", or none")
        @Schema(description = "the timeout its tasks ask for from now on; none removes it (the type's applies)",
                examples = "30s")
        String timeout) {
}

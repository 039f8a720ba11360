package io.taskfence.api.claims;

import java.time.Instant;
import java.util.List;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.api.Delay;
import io.taskfence.task.TaskStatus;

/** The worker API's bodies besides a claim request (DESIGN.md, "Remote workers"). */
final class ClaimAnswers {

    private static final String PROGRESS_LAST = "the attempt's last progress report, written before the end (as "
            + "POST /claims/{claimId}/progress takes it); absent for none";

    private ClaimAnswers() {
    }

    /** The tasks a claim request got: none when its wait ended first. */
    @Schema(name = "Claims", requiredProperties = "claims")
    record Claims(List<ClaimedTask> claims) {
    }

    /** A heartbeat's answer: the claim holds until then. */
    @Schema(name = "Lease", requiredProperties = "leaseUntil")
    record Lease(Instant leaseUntil) {
    }

    /** What a claim's end made of the task. */
    @Schema(name = "ClaimEnded", requiredProperties = "status")
    record Ended(TaskStatus status) {
    }

    /** The body of a claim's success. */
    @Schema(name = "ClaimResult")
    record Result(@Schema(description = "stored as the task's result; JSON of at most 1 MiB; null when absent")
            JsonNode result,

            @Schema(description = PROGRESS_LAST) ObjectNode progress) {
    }

    /** The body of a claim's progress report. */
    @Schema(name = "ClaimProgress", requiredProperties = "progress")
    record Progress(@NotNull(message = "a JSON object, e.g. {\"done\": 40, \"total\": 100}")
            @Schema(description = "how far the attempt has come, shown as the task's progress: a JSON object of at most "
                    + "4 KiB, e.g. {\"done\": 40, \"total\": 100, \"message\": \"page 40\"}") ObjectNode progress) {
    }

    /** The body of a claim's failure. */
    @Schema(name = "ClaimFailure")
    record Failure(
            @NotNull @Size(min = 1, max = 10_000)
            @Schema(description = "why the attempt failed, stored as the task's lastError") String error,

            @Schema(description = "false: no attempt can succeed, the task is DEAD now; true when absent")
            Boolean retryable,

            @Pattern(regexp = Delay.PATTERN, message = "must be a number of seconds or milliseconds, e.g. 30s")
            @Schema(description = "retry after this long instead of the backoff, e.g. `30s`") String retryAfter,

            @Schema(description = PROGRESS_LAST) ObjectNode progress) {
    }
}

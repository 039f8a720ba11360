package io.taskfence.api.claims;

import java.util.List;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.taskfence.api.LongPoll;
import io.taskfence.api.SubmissionChecks;

/** The body of {@code POST /api/v1/claims}: a remote worker asks for tasks (DESIGN.md, "Remote workers"). */
@Schema(name = "ClaimRequest")
public record ClaimRequest(
        @NotNull @Size(min = 1, max = 20)
        @Schema(description = "remote task types to claim, each one the key names", examples = "[\"resize\"]")
        List<@NotNull @Pattern(regexp = SubmissionChecks.TYPE, message = SubmissionChecks.TYPE_RULE) String> types,

        @Min(1) @Max(100)
        @Schema(description = "at most this many tasks; 1 when absent")
        Integer max,

        @Pattern(regexp = LongPoll.PATTERN, message = LongPoll.RULE)
        @Schema(description = "how long to wait for a first task when none is there, up to 60s: `0s`, `20s`, "
                + "`500ms`; 0s when absent", examples = "20s")
        @JsonProperty("wait") String waitUpTo,

        @Pattern(regexp = WORKER, message = WORKER_RULE)
        @Schema(description = "the worker's name, shown as part of the claim's worker id (e.g. its host and "
                + "process); `worker` when absent", examples = "host-7.4021")
        String worker) {

    static final String WORKER = "[A-Za-z0-9._-]{1,64}";
    static final String WORKER_RULE = "must match " + WORKER;
}

package io.taskfence.api.claims;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.remote.ClaimId;
import io.taskfence.task.TaskRows;
import io.taskfence.task.transition.Claim;

/**
 * A task claimed for a remote worker, with its claim (DESIGN.md, "Remote workers"): the worker names
 * {@code claimId} in its heartbeats, its result or its failure, and fences its own writes with {@code fencingToken}.
 */
@Schema(name = "ClaimedTask", requiredProperties = { "claimId", "taskId", "type", "payload", "attempt", "fencingToken",
        "leaseUntil", "leaseMillis", "owner", "traceparent" })
public record ClaimedTask(
        @Schema(description = "names this claim in the worker API's later calls") String claimId,
        UUID taskId,
        String type,
        ObjectNode payload,
        @Schema(description = "the task's attempt this claim runs, from 1") int attempt,
        @Schema(description = "one more than the task's claim before this one: a store the worker writes to can refuse "
                + "a write carrying a lower token than one it has seen") long fencingToken,
        @Schema(description = "the claim ends then unless a heartbeat extends it") Instant leaseUntil,
        @Schema(description = "how far each heartbeat extends the lease (taskfence.worker.lease), never past the "
                + "attempt's time-out: send one at a third of it") long leaseMillis,
        @Schema(nullable = true, description = "the API key that submitted the task; null for none") String owner,
        @Schema(nullable = true, description = "the W3C trace context of this claim, in the trace of the task's submission: the "
                + "worker's spans continue it, and its calls about this claim send it as their traceparent header; "
                + "null when the service does not trace") String traceparent,
        @JsonInclude(Include.NON_NULL) @Schema(description = "how long the attempt may take from its claim, <n>s or "
                + "<n>ms (the task's timeout); leaseUntil never passes its end, and a heartbeat or completion after it "
                + "is refused 409; absent for none", examples = "30s") String timeout) {

    static ClaimedTask of(Claim claim, Duration lease, String traceparent) {
        return new ClaimedTask(ClaimId.of(claim).toString(), claim.taskId(), claim.type(), claim.payload(),
                claim.attempt(), claim.fencingToken(), claim.leaseUntil(), lease.toMillis(), claim.owner(), traceparent,
                claim.timeout() == null ? null : TaskRows.durationText(claim.timeout().toMillis()));
    }
}

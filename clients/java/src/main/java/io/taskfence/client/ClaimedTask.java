package io.taskfence.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A task claimed for this worker, as {@code POST /api/v1/claims} answers it.
 *
 * @param fencingToken one more than the task's claim before this one: send it with every write to a store of your
 *        own, which refuses a token lower than one it has seen
 * @param leaseMillis how far each heartbeat extends the lease, never past the time-out; the worker heartbeats at a
 *        third of it
 * @param traceparent the claim's W3C trace context, in the trace of the task's submission (null when the service does
 *        not trace): a handler's own spans continue it, and the client sends it with its calls about the claim
 * @param timeout how long the attempt may take from its claim ({@code 30s}, {@code 500ms}), null for no limit: the
 *        lease never goes past it, the claim's calls after it are refused as superseded, and the worker stops the
 *        job then
 */
public record ClaimedTask(String claimId, String taskId, String type, ObjectNode payload, int attempt,
        long fencingToken, String leaseUntil, long leaseMillis, String owner, String traceparent, String timeout) {
}

package io.taskfence.task.transition;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A worker's hold on one PROCESSING task. {@code attempt} and {@code claimId} together identify the claim: every
 * later transition of this attempt names both, so a worker whose claim was recovered and handed on can no longer
 * change the task. {@code owner}: the API key that submitted the task, null for none.
 *
 * @param fencingToken this claim's number among the task's claims, one more than the claim before it: what a
 *        worker's own store compares to refuse a write from a claim older than one it has seen
 * @param leaseUntil when the claim's lease ends unless a heartbeat extends it, on PostgreSQL's clock
 * @param traceParent the task's submission's W3C {@code traceparent}, which the attempt's span continues; null for none
 * @param timeout how long the attempt may take (DESIGN.md, "Task lifecycle", "Attempt time-outs"); null for no limit
 */
public record Claim(UUID taskId, String type, ObjectNode payload, int attempt, String claimId, String owner,
        long fencingToken, Instant leaseUntil, String traceParent, Duration timeout) {

    /** A claim without a time-out. */
    public Claim(UUID taskId, String type, ObjectNode payload, int attempt, String claimId, String owner,
            long fencingToken, Instant leaseUntil, String traceParent) {
        this(taskId, type, payload, attempt, claimId, owner, fencingToken, leaseUntil, traceParent, null);
    }

    /** A claim whose task carries no trace. */
    public Claim(UUID taskId, String type, ObjectNode payload, int attempt, String claimId, String owner,
            long fencingToken, Instant leaseUntil) {
        this(taskId, type, payload, attempt, claimId, owner, fencingToken, leaseUntil, null);
    }
}

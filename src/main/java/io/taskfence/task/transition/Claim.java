package io.taskfence.task.transition;

import java.util.UUID;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A worker's hold on one PROCESSING task. {@code attempt} and {@code claimId} together are the worker's
 * fencing token: every later transition of this attempt names both, so a worker whose claim was
 * recovered and handed on can no longer change the task. {@code owner}: the API key that submitted the task, null
 * for none.
 */
public record Claim(UUID taskId, String type, ObjectNode payload, int attempt, String claimId, String owner) {
}

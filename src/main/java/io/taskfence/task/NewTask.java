package io.taskfence.task;

import java.time.Instant;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A validated submission. {@code runAt} null means now (the database's now); {@code idempotencyKey}
 * null means every submission makes a new task.
 */
public record NewTask(String type, ObjectNode payload, int maxAttempts, int priority, Instant runAt,
        Instant deadline, String idempotencyKey) {
}

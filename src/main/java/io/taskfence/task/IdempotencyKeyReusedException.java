package io.taskfence.task;

import java.util.UUID;

/** A submission reused an idempotency key that an earlier, different submission made a task with. */
public final class IdempotencyKeyReusedException extends RuntimeException {

    private final UUID existingTask;

    IdempotencyKeyReusedException(String key, UUID existingTask) {
        super("Idempotency-Key '" + key + "' was already used for a different request (task " + existingTask
                + "); use a new key for a new task");
        this.existingTask = existingTask;
    }

    public UUID existingTask() {
        return existingTask;
    }
}

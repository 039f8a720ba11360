package io.taskfence.task;

import java.util.UUID;

/** A submission reused an idempotency key that an earlier, different submission made a task with. */
public final class IdempotencyKeyReusedException extends RuntimeException {

    private final UUID existingTask;

    IdempotencyKeyReusedException(ReusedKey reused) {
        super(reused.detail());
        this.existingTask = reused.existingTask();
    }

    public UUID existingTask() {
        return existingTask;
    }
}

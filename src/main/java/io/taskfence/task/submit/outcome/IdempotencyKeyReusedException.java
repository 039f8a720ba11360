package io.taskfence.task.submit.outcome;

/** A submission reused an idempotency key that an earlier, different submission made a task with. */
public final class IdempotencyKeyReusedException extends RuntimeException {

    private final ReusedKey reused;

    public IdempotencyKeyReusedException(ReusedKey reused) {
        super(reused.detail("idempotency key"));
        this.reused = reused;
    }

    public ReusedKey reused() {
        return reused;
    }
}

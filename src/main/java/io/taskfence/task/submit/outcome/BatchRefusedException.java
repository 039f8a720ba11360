package io.taskfence.task.submit.outcome;

import java.util.UUID;

/** A batch submission that names a batch it cannot add to; nothing was stored. */
public final class BatchRefusedException extends RuntimeException {

    /**
     * Why: the batch does not exist (for this owner), it is closed, the then task's key made another task, or the
     * then task's type was taken back.
     */
    public enum Reason { UNKNOWN, CLOSED, THEN_KEY_REUSED, THEN_TYPE_TAKEN_BACK }

    private final Reason reason;

    public BatchRefusedException(Reason reason, String detail) {
        super(detail);
        this.reason = reason;
    }

    public static BatchRefusedException unknown(UUID id, String owner) {
        return new BatchRefusedException(Reason.UNKNOWN, "batchId names batch " + id + ", which "
                + (owner == null ? "does not exist" : "API key '" + owner + "' does not have"));
    }

    public static BatchRefusedException closed(UUID id) {
        return new BatchRefusedException(Reason.CLOSED, "batch " + id + " is closed: its then task runs once its "
                + "tasks have ended, and no task can join it; submit these tasks as a new batch");
    }

    public Reason reason() {
        return reason;
    }
}

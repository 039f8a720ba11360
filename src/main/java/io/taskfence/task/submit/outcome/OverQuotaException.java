package io.taskfence.task.submit.outcome;

/** A single submission refused by its owner's quota ({@link OverQuota}); nothing was stored. */
public final class OverQuotaException extends RuntimeException {

    private final transient OverQuota refused;

    public OverQuotaException(OverQuota refused) {
        super(refused.detail(), null, false, false);
        this.refused = refused;
    }

    public OverQuota refused() {
        return refused;
    }
}

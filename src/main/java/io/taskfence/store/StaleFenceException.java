package io.taskfence.store;

/**
 * PostgreSQL refused a fenced write: a holder with a newer token of the same lock has written since.
 * Nothing of the refused transaction was kept; the job run that carried the token must stop.
 */
public final class StaleFenceException extends RuntimeException {

    private final String lock;
    private final long token;

    public StaleFenceException(String lock, long token) {
        super("fencing token " + token + " of lock " + lock + " is older than the newest PostgreSQL has seen");
        this.lock = lock;
        this.token = token;
    }

    public String lock() {
        return lock;
    }

    public long token() {
        return token;
    }
}

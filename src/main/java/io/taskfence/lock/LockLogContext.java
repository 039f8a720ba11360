package io.taskfence.lock;

import org.jboss.logging.MDC;

/**
 * Puts a held lock's name and fencing token in the calling thread's logging context (MDC keys
 * {@code lock} and {@code fenceToken}) until closed, so that every line the guarded job and its
 * watchdog log says which lease it ran under. Closing restores what the keys held before.
 */
final class LockLogContext implements AutoCloseable {

    static final String LOCK = "lock";
    static final String FENCE_TOKEN = "fenceToken";

    private final Object previousLock;
    private final Object previousToken;

    private LockLogContext(Object previousLock, Object previousToken) {
        this.previousLock = previousLock;
        this.previousToken = previousToken;
    }

    static LockLogContext enter(FencedLease lease) {
        return new LockLogContext(MDC.put(LOCK, lease.name()), MDC.put(FENCE_TOKEN, Long.toString(lease.token())));
    }

    @Override
    public void close() {
        restore(LOCK, previousLock);
        restore(FENCE_TOKEN, previousToken);
    }

    private static void restore(String key, Object previous) {
        if (previous == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, previous);
        }
    }
}

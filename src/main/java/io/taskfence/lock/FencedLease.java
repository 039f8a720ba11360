package io.taskfence.lock;

import java.time.Duration;
import java.util.Map;

import io.taskfence.logging.LogContext;

/**
 * One holder's hold on a named lock, with the fencing token that every write it makes must carry.
 *
 * <p>Validity is judged conservatively on this replica's monotonic clock: the lease counts from the
 * moment the acquire (or the last renew) was <em>sent</em>, so it always ends here no later than it
 * ends in Redis. Once the lease is released, lapses, or a renew is refused, it stays invalid.
 */
public final class FencedLease implements AutoCloseable {

    private final LockKeys keys;
    private final String owner;
    private final long token;
    private final Duration lease;
    private final LockScripts scripts;

    private volatile long validUntilNanos;
    private volatile boolean ended;
    private volatile boolean released;

    FencedLease(LockKeys keys, String owner, long token, Duration lease, long sentAtNanos, LockScripts scripts) {
        this.keys = keys;
        this.owner = owner;
        this.token = token;
        this.lease = lease;
        this.scripts = scripts;
        this.validUntilNanos = sentAtNanos + lease.toNanos();
    }

    public String name() {
        return keys.name();
    }

    /** The fencing token: strictly greater than the token of every earlier holder of this lock. */
    public long token() {
        return token;
    }

    /** Who holds it: the replica id and a UUID unique to this acquisition. */
    public String owner() {
        return owner;
    }

    public Duration lease() {
        return lease;
    }

    /** The Redis key of the lock, for scripts that must act only while this lease still holds it. */
    public String lockKey() {
        return keys.lock();
    }

    /**
     * Puts the lock's name and token in the calling thread's logging context (MDC keys {@code lock} and
     * {@code fenceToken}) until closed, so that the lines a guarded job and its watchdog log say which
     * lease they ran under.
     */
    LogContext logContext() {
        return LogContext.with(Map.of("lock", name(), "fenceToken", Long.toString(token)));
    }

    /** What the lock key holds while this lease holds the lock: {@code <owner>:<token>}. */
    public String holder() {
        return owner + ":" + token;
    }

    /** Whether this holder may still act on the lock. A fenced write is refused anyway if it no longer may. */
    public boolean isValid() {
        return !ended && System.nanoTime() - validUntilNanos < 0;
    }

    /**
     * Whether a job under this lease may take another step: the lease holds and the thread was not interrupted (as
     * the watchdog does when it loses the lease).
     */
    public boolean mayGoOn() {
        return isValid() && !Thread.currentThread().isInterrupted();
    }

    /** {@link #mayGoOn()}, and {@code deadlineNanos} ({@link System#nanoTime()}'s clock) has not passed. */
    public boolean mayGoOnUntil(long deadlineNanos) {
        return mayGoOn() && System.nanoTime() - deadlineNanos < 0;
    }

    /** Whether the lease's end by this replica's clock has passed, whatever became of it since. */
    boolean endPassed() {
        return System.nanoTime() - validUntilNanos >= 0;
    }

    /**
     * Extends the lease by its full length if this holder still holds it.
     *
     * @return true if renewed; false if the lock was lost (the lease is then invalid for good)
     * @throws LockUnavailableException if Redis did not answer; the lease keeps its current end
     */
    public boolean renew() {
        if (ended) {
            return false;
        }
        long sentAt = System.nanoTime();
        if (scripts.renew(keys, holder(), lease.toMillis())) {
            validUntilNanos = sentAt + lease.toNanos();
            return true;
        }
        ended = true;
        return false;
    }

    /**
     * Gives the lock back if this holder still holds it, and wakes the waiters. Never deletes a lock that
     * another holder acquired after this lease lapsed.
     *
     * @return true if this call released it; false if it had already been released or lost
     * @throws LockUnavailableException if Redis did not answer; the lock then ends with its lease
     */
    public synchronized boolean release() {
        if (released) {
            return false;
        }
        released = true;
        ended = true;
        // Compare-and-delete, so asking is safe even when the lease looks lost here: a renew whose reply
        // timed out may still have extended it in Redis.
        return scripts.release(keys, holder());
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "FencedLease[" + name() + " token=" + token + " owner=" + owner + (isValid() ? "" : " invalid") + "]";
    }

    /** Marks the lease lost without asking Redis: its end passed while renewals went unanswered. */
    void expire() {
        ended = true;
    }

    /** Whether the holder gave the lock back (not: lost it). */
    boolean released() {
        return released;
    }

    /** Time until the lease ends here; negative once it has. */
    long nanosLeft() {
        return validUntilNanos - System.nanoTime();
    }

}

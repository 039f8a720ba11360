package io.taskfence.worker;

import java.time.Duration;

/**
 * The end of an attempt's processing lease by this replica's monotonic clock: the lease counts from the
 * moment the claim, or the last heartbeat PostgreSQL confirmed, was <em>sent</em>, less a safety margin.
 * PostgreSQL starts the same lease at its {@code now()} when the statement runs, which is later, so the
 * lease ends here before recovery may hand the task on.
 *
 * <p>The margin, a tenth of the lease (6 s of the default 60 s), covers what the sending time does not:
 * the two clocks running at slightly different rates (well under 0.1 %), and the time between this end
 * and the handler having stopped (the timer's thread being scheduled, the interrupt reaching a blocking
 * call, a GC pause). It leaves a heartbeat that failed once, at a third of the lease, room for the next.
 */
final class LeaseDeadline {

    private final long leaseNanos;
    private volatile long endsAtNanos;

    LeaseDeadline(Duration lease, long claimSentAtNanos) {
        this.leaseNanos = lease.toNanos() - margin(lease).toNanos();
        this.endsAtNanos = claimSentAtNanos + leaseNanos;
    }

    /** How much earlier than PostgreSQL the lease ends here. */
    static Duration margin(Duration lease) {
        return lease.dividedBy(10);
    }

    /** A heartbeat sent at {@code sentAtNanos} was confirmed: the lease runs from then, unless it already runs longer. */
    synchronized void extendFrom(long sentAtNanos) {
        long candidate = sentAtNanos + leaseNanos;
        if (candidate - endsAtNanos > 0) {
            endsAtNanos = candidate;
        }
    }

    boolean passed() {
        return nanosLeft() <= 0;
    }

    /** Time until the lease ends here; zero or negative once it has. */
    long nanosLeft() {
        return endsAtNanos - System.nanoTime();
    }
}

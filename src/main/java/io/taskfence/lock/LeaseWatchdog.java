package io.taskfence.lock;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.taskfence.logging.LogContext;

/**
 * Keeps a lease alive while the work it guards runs on one thread, renewing every third of the lease.
 * The lock is lost when a renew is refused (another holder has it), or when the lease runs out here
 * while Redis does not answer: then the lease turns invalid and the guarded thread is interrupted at
 * once, so the work stops instead of running on to a result that the fence would refuse.
 */
final class LeaseWatchdog implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LeaseWatchdog.class);

    private final FencedLease lease;
    private final Thread guarded;
    private final ScheduledExecutorService timer;
    // All guarded by this: the job's thread closes while the timer's threads renew and expire.
    private ScheduledFuture<?> renewals;
    private ScheduledFuture<?> expiry;
    private boolean running = true;
    private boolean lost;
    private boolean interrupted;

    private LeaseWatchdog(FencedLease lease, Thread guarded, ScheduledExecutorService timer) {
        this.lease = lease;
        this.guarded = guarded;
        this.timer = timer;
    }

    /** Starts guarding the calling thread. */
    static LeaseWatchdog guardCurrentThread(FencedLease lease, ScheduledExecutorService timer) {
        LeaseWatchdog watchdog = new LeaseWatchdog(lease, Thread.currentThread(), timer);
        long period = Math.max(1, lease.lease().toMillis() / 3);
        synchronized (watchdog) {
            watchdog.renewals = timer.scheduleWithFixedDelay(watchdog::renew, period, period, TimeUnit.MILLISECONDS);
            watchdog.scheduleExpiry();
        }
        return watchdog;
    }

    synchronized boolean lost() {
        return lost;
    }

    private void renew() {
        try (LogContext context = lease.logContext()) {
            renewOnce();
        }
    }

    private void renewOnce() {
        if (!isRunning() || lease.released()) {
            return; // the job ended, or gave the lock back itself
        }
        try {
            if (lease.renew()) {
                synchronized (this) {
                    scheduleExpiry();
                }
            } else if (!lease.released()) {
                loseLock("another holder has it");
            }
        } catch (RuntimeException e) {
            // Unknown whether Redis renewed it: keep trying until the lease runs out here (see expire).
            LOG.warnf("cannot renew lock %s (token %d): %s; retrying while the lease lasts", lease.name(),
                    lease.token(), e.getMessage());
        }
    }

    /** Runs when the lease's end here has come without a successful renew in between. */
    private void expire() {
        try (LogContext context = lease.logContext()) {
            if (!lease.isValid() && isRunning() && !lease.released()) {
                lease.expire();
                loseLock("its lease ran out while Redis did not answer");
            }
        }
    }

    private void scheduleExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
        }
        expiry = timer.schedule(this::expire, Math.max(0, lease.nanosLeft()), TimeUnit.NANOSECONDS);
    }

    private synchronized void loseLock(String why) {
        if (!running || lost) {
            return;
        }
        lost = true;
        renewals.cancel(false);
        expiry.cancel(false);
        LOG.warnf("lock %s (token %d) was lost: %s; cancelling the job", lease.name(), lease.token(), why);
        interrupted = true;
        guarded.interrupt();
    }

    private synchronized boolean isRunning() {
        return running;
    }

    /** Stops renewing. Called on the guarded thread; clears the interrupt this watchdog caused. */
    @Override
    public synchronized void close() {
        running = false;
        renewals.cancel(false);
        expiry.cancel(false);
        if (interrupted) {
            Thread.interrupted();
        }
    }
}

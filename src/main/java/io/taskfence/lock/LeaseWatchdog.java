package io.taskfence.lock;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

/**
 * Keeps a lease alive while the work it guards runs on one thread, renewing every third of the lease.
 * When the lock is lost (a renew is refused, or Redis stays silent until the lease has ended) the
 * lease turns invalid and the guarded thread is interrupted: the work stops instead of running on to
 * a result that the fence would refuse.
 */
final class LeaseWatchdog implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LeaseWatchdog.class);

    private final FencedLease lease;
    private final Thread guarded;
    private volatile ScheduledFuture<?> renewals;
    private boolean running = true;
    private boolean interrupted;
    private volatile boolean lost;

    private LeaseWatchdog(FencedLease lease, Thread guarded) {
        this.lease = lease;
        this.guarded = guarded;
    }

    /** Starts guarding the calling thread. */
    static LeaseWatchdog guardCurrentThread(FencedLease lease, ScheduledExecutorService timer) {
        LeaseWatchdog watchdog = new LeaseWatchdog(lease, Thread.currentThread());
        long period = Math.max(1, lease.lease().toMillis() / 3);
        watchdog.renewals = timer.scheduleWithFixedDelay(watchdog::renew, period, period, TimeUnit.MILLISECONDS);
        return watchdog;
    }

    boolean lost() {
        return lost;
    }

    private void renew() {
        if (lost || !isRunning()) {
            return;
        }
        try {
            if (lease.renew() || !isRunning()) {
                return;
            }
            LOG.warnf("lock %s (token %d) was lost: another holder has it; cancelling the job", lease.name(),
                    lease.token());
        } catch (LockUnavailableException e) {
            if (lease.isValid()) {
                LOG.warnf("cannot renew lock %s (token %d): %s; retrying while the lease lasts", lease.name(),
                        lease.token(), e.getMessage());
                return;
            }
            lease.expire();
            LOG.warnf("lock %s (token %d) lapsed while Redis did not answer; cancelling the job", lease.name(),
                    lease.token());
        }
        lost = true;
        cancelGuardedWork();
    }

    private synchronized boolean isRunning() {
        return running;
    }

    private synchronized void cancelGuardedWork() {
        if (running) {
            interrupted = true;
            guarded.interrupt();
        }
    }

    /** Stops renewing. Called on the guarded thread; clears the interrupt this watchdog caused. */
    @Override
    public void close() {
        ScheduledFuture<?> scheduled = renewals;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        synchronized (this) {
            running = false;
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }
}

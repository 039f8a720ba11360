package io.taskfence.jobs;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLocks;
import io.taskfence.lock.LockUnavailableException;
import io.taskfence.queue.QueueUnavailableException;
import io.taskfence.store.FenceToken;
import io.taskfence.store.SchemaMigrations;
import io.taskfence.store.StaleFenceException;
import io.taskfence.store.TaskStoreException;

/**
 * How the single-replica jobs run: under their lock with the watchdog, skipped while another replica holds
 * it; a token PostgreSQL refuses leads to the counter repair (also when the refusal came after the lease
 * was lost, so that it is always counted); and a run that cannot reach Redis or PostgreSQL is skipped
 * with a warning, for the next tick to try again, rather than failing with a stack trace every tick. Until
 * this replica's schema migrations are applied no job runs: its statements would meet an old schema, and
 * could deadlock with the migration (readiness says why meanwhile).
 */
@ApplicationScoped
class FencedJobs {

    private static final Logger LOG = Logger.getLogger(FencedJobs.class);

    private final FencedLocks locks;
    private final FenceRepair repair;
    private final SchemaMigrations schema;
    private final Duration lease;

    FencedJobs(FencedLocks locks, FenceRepair repair, SchemaMigrations schema, TaskfenceConfig config) {
        this.locks = locks;
        this.repair = repair;
        this.schema = schema;
        this.lease = config.lock().lease();
    }

    /**
     * Runs {@code job} under the lock {@code name}, waiting at most {@code waitAtMost} for it, with the fence token
     * of the lease it got.
     */
    void run(String name, Duration waitAtMost, LeaderJob job) {
        if (!schema.state().applied()) {
            return;
        }
        repair.watch(name);
        try {
            locks.runExclusively(name, lease, waitAtMost, held -> {
                try {
                    job.run(held, new FenceToken(name, held.token(), held.holder()));
                } catch (StaleFenceException refused) {
                    // The watchdog may have interrupted this thread (the lease was lost too); the repair's
                    // Redis and PostgreSQL calls must still get through.
                    boolean interrupted = Thread.interrupted();
                    try {
                        repair.afterRefusal(refused);
                    } finally {
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            });
        } catch (TaskStoreException e) {
            if (e.lockTimedOut()) {
                // A request held a row the job needed past taskfence.job-lock-timeout: nothing of this run was
                // written, and the next run takes the rows up again.
                LOG.infof("%s left rows a request holds for its next run: %s", name, e.getMessage());
            } else {
                LOG.warnf("%s skipped: %s", name, e.getMessage());
            }
        } catch (LockUnavailableException | QueueUnavailableException e) {
            LOG.warnf("%s skipped: %s", name, e.getMessage());
        } catch (Exception e) {
            LOG.errorf(e, "%s failed", name);
        }
    }
}

package io.taskfence.jobs;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLease;
import io.taskfence.queue.TaskQueue;
import io.taskfence.store.FenceToken;
import io.taskfence.task.transition.LeaseRecovery;
import io.taskfence.types.RemoteTypes;

/**
 * Returns lost work to the cycle, on one replica at a time: ENQUEUED tasks whose message was lost go
 * back to PENDING, and PROCESSING tasks whose worker stopped heartbeating count a failed attempt.
 */
@ApplicationScoped
class Recovery {

    private static final Logger LOG = Logger.getLogger(Recovery.class);

    private final FencedJobs jobs;
    private final LeaseRecovery transitions;
    private final TaskQueue queue;
    private final RemoteTypes remote;
    private final Duration enqueuedTimeout;
    private final Duration backoffBase;
    private final Duration backoffCap;

    Recovery(FencedJobs jobs, LeaseRecovery transitions, TaskQueue queue, RemoteTypes remote, TaskfenceConfig config) {
        this.remote = remote;
        this.jobs = jobs;
        this.transitions = transitions;
        this.queue = queue;
        this.enqueuedTimeout = config.recovery().enqueuedTimeout();
        this.backoffBase = config.retry().backoffBase();
        this.backoffCap = config.retry().backoffCap();
    }

    @Scheduled(identity = "recovery", every = "${taskfence.recovery.interval}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        jobs.run(JobLocks.RECOVERY, Duration.ZERO, this::recover);
    }

    void recover(FencedLease held, FenceToken fence) {
        // Read before the update: a message claimed meanwhile leaves its row PROCESSING, which the update skips.
        int requeued = transitions.requeueStaleEnqueued(fence, enqueuedTimeout, queue.queuedTaskIds(remote.names()));
        int expired = transitions.failExpiredLeases(fence, backoffBase, backoffCap);
        if (requeued + expired > 0) {
            LOG.infof("recovery: %d ENQUEUED tasks without a message back to PENDING, %d expired processing "
                    + "leases failed", requeued, expired);
        }
    }
}

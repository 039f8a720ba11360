package io.taskfence.jobs;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.taskfence.lock.FencedLocks;
import io.taskfence.store.StaleFenceException;
import io.taskfence.task.query.TaskQueries;

/**
 * What a job does when PostgreSQL refuses its token (DESIGN.md, "Fencing (PostgreSQL)"). Either a newer holder has
 * written (this one is simply stale), or Redis lost the token counter and handed out a token below
 * the fence; then the counter is raised to the fence, so that the next acquisition is accepted again.
 */
@ApplicationScoped
class FenceRepair {

    private static final Logger LOG = Logger.getLogger(FenceRepair.class);

    private final FencedLocks locks;
    private final TaskQueries queries;
    private final MeterRegistry metrics;

    FenceRepair(FencedLocks locks, TaskQueries queries, MeterRegistry metrics) {
        this.locks = locks;
        this.queries = queries;
        this.metrics = metrics;
    }

    /** Registers the lock's counters at zero before any refusal: a counter first seen at 1 is an increase Prometheus misses. */
    void watch(String lock) {
        metrics.counter("taskfence.fence.refusals", "lock", lock);
        metrics.counter("taskfence.fence.repairs", "lock", lock);
    }

    void afterRefusal(StaleFenceException refused) {
        metrics.counter("taskfence.fence.refusals", "lock", refused.lock()).increment();
        long fence = queries.newestFence(refused.lock());
        if (locks.raiseCounter(refused.lock(), fence)) {
            metrics.counter("taskfence.fence.repairs", "lock", refused.lock()).increment();
            LOG.warnf("lock %s: token %d was refused by a fence at %d that Redis's counter was behind "
                    + "(Redis lost its data?); raised the counter to %d", refused.lock(), refused.token(), fence, fence);
        } else {
            LOG.infof("lock %s: token %d was refused; a newer holder (fence %d) has written", refused.lock(),
                    refused.token(), fence);
        }
    }
}

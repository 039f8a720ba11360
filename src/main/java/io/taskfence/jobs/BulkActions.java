package io.taskfence.jobs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;
import io.taskfence.task.action.TaskActions;

/**
 * Works through the running bulk actions, on one replica at a time (DESIGN.md, "Bulk actions"): every
 * {@code taskfence.actions.interval}, a fenced batch of each running action in turn, oldest first, until none has
 * more, the lease is lost or the run has taken an interval (the next run carries on where the last batch ended).
 */
@ApplicationScoped
class BulkActions {

    private static final Logger LOG = Logger.getLogger(BulkActions.class);

    private final FencedJobs jobs;
    private final TaskActions actions;
    private final Duration budget;
    private final int batchSize;

    BulkActions(FencedJobs jobs, TaskActions actions, TaskfenceConfig config) {
        this.jobs = jobs;
        this.actions = actions;
        this.budget = config.actions().interval();
        this.batchSize = config.actions().batchSize();
    }

    @Scheduled(identity = "actions", every = "${taskfence.actions.interval}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        run();
    }

    /** One run under the lock, if no other replica holds it. */
    void run() {
        jobs.run(JobLocks.ACTIONS, Duration.ZERO, this::work);
    }

    void work(FencedLease held, FenceToken fence) {
        long stopAt = System.nanoTime() + budget.toNanos();
        List<UUID> running = new ArrayList<>(actions.running());
        while (!running.isEmpty() && held.isValid() && !Thread.currentThread().isInterrupted()
                && System.nanoTime() - stopAt < 0) {
            for (UUID action : List.copyOf(running)) {
                if (!actions.step(fence, action, batchSize)) {
                    running.remove(action);
                    LOG.infof("actions: bulk action %s done", action);
                }
            }
        }
    }
}

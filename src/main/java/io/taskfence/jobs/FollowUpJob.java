package io.taskfence.jobs;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;
import io.taskfence.task.TasksEnded;
import io.taskfence.task.followup.FollowUps;

/**
 * Does what tasks' ends left for other tasks, on one replica at a time (DESIGN.md, "Follow-ups"): woken by every end
 * of a task with dependents or a callback on this replica, and every {@code taskfence.follow-ups.interval}; it works
 * fenced chunks until none is left, the lease is lost or the run has taken an interval (a run then follows at once).
 */
@ApplicationScoped
class FollowUpJob {

    private final FencedJobs jobs;
    private final FollowUps followUps;
    private final Duration interval;
    private final boolean enabled;
    private final ExecutorService nudges = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("follow-ups-nudge").daemon().factory());
    private final AtomicBoolean nudgePending = new AtomicBoolean();

    FollowUpJob(FencedJobs jobs, FollowUps followUps, TaskfenceConfig config) {
        this.jobs = jobs;
        this.followUps = followUps;
        this.interval = config.followUps().interval();
        this.enabled = config.dispatch().enabled();
    }

    @Scheduled(identity = "follow-ups", every = "${taskfence.follow-ups.interval}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        runIfFree(Duration.ZERO);
    }

    /** Tasks ended here: if one may have left follow-ups, a run starts soon (waiting up to an interval for the lock). */
    void onEnded(@Observes TasksEnded event) {
        if (event.followUps()) {
            nudge();
        }
    }

    private void nudge() {
        if (enabled && nudgePending.compareAndSet(false, true)) {
            nudges.execute(() -> {
                nudgePending.set(false);
                runIfFree(interval);
            });
        }
    }

    private void runIfFree(Duration waitAtMost) {
        jobs.run(JobLocks.FOLLOW_UPS, waitAtMost, this::work);
    }

    void work(FencedLease held, FenceToken fence) {
        long stopAt = System.nanoTime() + interval.toNanos();
        while (held.mayGoOn()) {
            if (!followUps.work(fence).more()) {
                return;
            }
            if (System.nanoTime() - stopAt >= 0) {
                // More is left: the next run follows at once, and the lease is not held without end.
                nudge();
                return;
            }
        }
    }

    @PreDestroy
    void close() {
        nudges.shutdownNow();
    }
}

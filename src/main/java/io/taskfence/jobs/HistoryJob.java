package io.taskfence.jobs;

import java.time.Duration;
import java.time.Instant;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.history.HistoryFolding;
import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;

/**
 * Folds finished work into the history (DESIGN.md, "History of work"), on one replica at a time: bounded steps, each
 * fenced, until it has caught up or the run has taken an interval (the next run carries on). Each run's time is in
 * {@code taskfence.history.fold} (the benchmark divides it by the tasks folded).
 */
@ApplicationScoped
class HistoryJob {

    private final FencedJobs jobs;
    private final HistoryFolding history;
    private final Duration budget;
    private final Timer runs;

    HistoryJob(FencedJobs jobs, HistoryFolding history, TaskfenceConfig config, MeterRegistry registry) {
        this.jobs = jobs;
        this.history = history;
        this.budget = config.history().interval();
        this.runs = Timer.builder("taskfence.history.fold").description("Runs of the history job, each to its end")
                .register(registry);
    }

    @Scheduled(identity = "history", every = "${taskfence.history.interval}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        run();
    }

    /** One run under the lock, if no other replica holds it. */
    void run() {
        jobs.run(JobLocks.HISTORY, Duration.ZERO, this::fold);
    }

    void fold(FencedLease held, FenceToken fence) {
        runs.record(() -> foldUntilCaughtUp(held, fence));
    }

    private void foldUntilCaughtUp(FencedLease held, FenceToken fence) {
        long stopAt = System.nanoTime() + budget.toNanos();
        Instant runStart = history.databaseNow();
        boolean worked = false;
        HistoryFolding.Round round;
        do {
            round = history.foldSome(fence, runStart);
            worked |= round.worked();
        } while (round.more() && held.mayGoOnUntil(stopAt));
        if (!round.more()) {
            history.caughtUp(fence, runStart, worked);
        }
    }
}

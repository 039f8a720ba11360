package io.taskfence.jobs;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;
import io.taskfence.task.batch.BatchCompletions;

/**
 * Completes batches, on one replica at a time (DESIGN.md, "Batches"): every {@code taskfence.batches.interval}, the
 * items' ends are folded into their batches' counts and each closed batch whose items have all ended releases its
 * then task, in fenced transactions of at most {@link #FOLD_AT_ONCE} ends each, until none is left.
 */
@ApplicationScoped
class BatchCompletion {

    private static final Logger LOG = Logger.getLogger(BatchCompletion.class);
    /** Ends folded in one transaction: bounds its locks and WAL while a large backlog is worked off. */
    static final int FOLD_AT_ONCE = 10_000;

    private final FencedJobs jobs;
    private final BatchCompletions completions;

    BatchCompletion(FencedJobs jobs, BatchCompletions completions) {
        this.jobs = jobs;
        this.completions = completions;
    }

    @Scheduled(identity = "batches", every = "${taskfence.batches.interval}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        run();
    }

    /** One run under the lock, if no other replica holds it. */
    void run() {
        jobs.run(JobLocks.BATCHES, Duration.ZERO, this::complete);
    }

    void complete(FencedLease held, FenceToken fence) {
        BatchCompletions.Run run;
        do {
            run = completions.foldAndComplete(fence, FOLD_AT_ONCE);
            if (run.completed() > 0) {
                LOG.infof("batches: %d complete, %d then tasks released", run.completed(), run.released());
            }
        } while (run.endsFolded() == FOLD_AT_ONCE && held.mayGoOn());
    }
}

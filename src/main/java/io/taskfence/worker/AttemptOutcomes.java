package io.taskfence.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.JsonNode;

import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;
import io.taskfence.logging.LogContext;
import io.taskfence.task.StorableJson;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.transition.AttemptTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.ProgressReports;

/**
 * Writes what a handler's run came to, for the attempt's claim: a success through the replica's batched writer,
 * anything else at once. Each write names the claim, so one that is no longer current changes nothing; a failure
 * is logged with what becomes of the task. The handler's progress goes through the replica's {@link ProgressReports}.
 */
final class AttemptOutcomes {

    private static final Logger LOG = Logger.getLogger(AttemptOutcomes.class);
    static final String MDC_TASK_ID = "taskId";
    static final String MDC_ATTEMPT = "attempt";

    private final AttemptTransitions transitions;
    private final SuccessBatches successes;
    private final ProgressReports progress;
    private final Duration backoffBase;
    private final Duration backoffCap;

    AttemptOutcomes(AttemptTransitions transitions, SuccessBatches successes, ProgressReports progress,
            TaskfenceConfig config) {
        this.progress = progress;
        this.transitions = transitions;
        this.successes = successes;
        this.backoffBase = config.retry().backoffBase();
        this.backoffCap = config.retry().backoffCap();
    }

    /** What the claim's handler gets: the task, and a way to report its progress. */
    TaskHandler.Work work(Claim claim) {
        return new TaskHandler.Work(claim.taskId(), claim.payload(), claim.attempt(), claim.owner(),
                report -> progress.report(claim, report));
    }

    /** Writes the outcome, after the progress the handler reported last (which the end would leave unwritten). */
    void record(Claim claim, TaskOutcome outcome) {
        try {
            progress.flush(claim);
        } catch (RuntimeException e) {
            LOG.debugf("the last progress report of task %s was not written: %s", claim.taskId(), e.getMessage());
        }
        switch (outcome) {
            case TaskOutcome.Success success -> succeeded(claim, success.result());
            case TaskOutcome.Failure failure -> logFailure(claim, failure.error(),
                    transitions.fail(claim, failure.error(), false, backoffBase, backoffCap));
            case TaskOutcome.PermanentFailure failure -> logFailure(claim, failure.error(),
                    transitions.fail(claim, failure.error(), true, backoffBase, backoffCap));
            case TaskOutcome.Later later -> {
                Optional<TaskStatus> to = transitions.later(claim, later.delay());
                LOG.debugf("task %s asks to be polled again in %s: %s", claim.taskId(), later.delay(),
                        to.map(Enum::name).orElse("the claim was no longer current"));
            }
        }
    }

    private void succeeded(Claim claim, JsonNode result) {
        Optional<String> unstorable = StorableJson.resultProblem(result);
        if (unstorable.isPresent()) {
            // Run again, the handler would most likely answer the same: the task ends here, with the reason.
            String error = "the handler succeeded, but its result cannot be stored: " + unstorable.get();
            logFailure(claim, error, transitions.fail(claim, error, true, backoffBase, backoffCap));
            return;
        }
        successes.complete(claim, result).whenComplete((written, e) -> inLogContext(claim, () -> {
            if (e != null) {
                LOG.warnf("task %s attempt %d succeeded, but recording it failed: %s; the lease will expire and "
                        + "recovery will retry the task", claim.taskId(), claim.attempt(), e.getMessage());
            } else if (!written) {
                LOG.infof("task %s attempt %d succeeded, but the claim was no longer current", claim.taskId(),
                        claim.attempt());
            }
        }));
    }

    /** Runs {@code work} with the claim's task id and attempt in the calling thread's logging context (MDC). */
    static void inLogContext(Claim claim, Runnable work) {
        try (LogContext context = LogContext.with(
                Map.of(MDC_TASK_ID, claim.taskId().toString(), MDC_ATTEMPT, Integer.toString(claim.attempt())))) {
            work.run();
        }
    }

    /** A failed attempt is worth a line: which task, which attempt, why, and whether it will be retried. */
    private static void logFailure(Claim claim, String error, Optional<TaskStatus> to) {
        LOG.infof("task %s (%s) attempt %d failed: %s; %s", claim.taskId(), claim.type(), claim.attempt(), error,
                to.map(status -> status == TaskStatus.DEAD ? "the task is DEAD" : "it is retried after a backoff")
                        .orElse("the claim was no longer current"));
    }
}

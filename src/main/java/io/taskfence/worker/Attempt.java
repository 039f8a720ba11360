package io.taskfence.worker;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.taskfence.TaskfenceConfig;
import io.taskfence.logging.LogContext;
import io.taskfence.task.Claim;
import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskHandlers;
import io.taskfence.task.TaskOutcome;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;

/**
 * One claimed attempt of one task: from its claim a heartbeat extends the processing lease, also while the
 * claim waits for a free worker ({@link #holdLease}); it runs its handler on the calling thread, then
 * records the outcome carrying the claim. If a heartbeat is refused (the task was recovered and handed on)
 * the handler is interrupted, or never started, and nothing more is written. While it runs, the
 * handler's thread and the heartbeat carry {@code taskId} and {@code attempt} in their logging context
 * (MDC), and the handler's run time is timed as {@code taskfence.task.run} (tags type, outcome).
 */
final class Attempt {

    private static final Logger LOG = Logger.getLogger(Attempt.class);
    static final String MDC_TASK_ID = "taskId";
    static final String MDC_ATTEMPT = "attempt";

    private final Claim claim;
    private final TaskTransitions transitions;
    private final TaskHandlers handlers;
    private final SuccessBatches successes;
    private final RunTimes runTimes;
    private final Duration lease;
    private final Duration backoffBase;
    private final Duration backoffCap;
    private ScheduledFuture<?> heartbeat;
    // Guarded by this: the heartbeat and shutdown threads interrupt, the handler's thread ends.
    private Thread runner;
    private boolean interrupted;
    private boolean lost;
    private boolean handedBack;
    // Held by a heartbeat while it extends the lease, so that the outcome is recorded only after it: a
    // heartbeat that ran after the outcome would find the claim gone and report the lease lost.
    private final Object leaseGuard = new Object();
    private boolean handlerDone;

    Attempt(Claim claim, TaskTransitions transitions, TaskHandlers handlers, TaskfenceConfig config,
            SuccessBatches successes, RunTimes runTimes) {
        this.claim = claim;
        this.transitions = transitions;
        this.handlers = handlers;
        this.successes = successes;
        this.runTimes = runTimes;
        this.lease = config.worker().lease();
        this.backoffBase = config.retry().backoffBase();
        this.backoffCap = config.retry().backoffCap();
    }

    UUID taskId() {
        return claim.taskId();
    }

    /** Starts the heartbeat; called once, when the claim commits, before the attempt waits for a worker. */
    void holdLease(ScheduledExecutorService heartbeats) {
        long period = Math.max(1, lease.toMillis() / 3);
        heartbeat = heartbeats.scheduleWithFixedDelay(this::heartbeat, period, period, TimeUnit.MILLISECONDS);
    }

    /** Runs the handler on the calling thread, unless the lease was lost or handed back while it waited. */
    void run() {
        inLogContext(this::runHandler);
    }

    private void runHandler() {
        Optional<TaskHandler> handler = handlers.forType(claim.type());
        if (handler.isEmpty()) {
            // Another replica (another version) may have it: an ordinary, retried failure.
            String error = "no handler for type '" + claim.type() + "' on this replica";
            endLease();
            logFailure(error, transitions.fail(claim, error, false, backoffBase, backoffCap));
            return;
        }
        synchronized (this) {
            if (lost || handedBack) {
                endLease();
                LOG.infof("task %s attempt %d: its lease %s while it waited for a worker; not run", claim.taskId(),
                        claim.attempt(), lost ? "was taken away" : "was handed back");
                return;
            }
            runner = Thread.currentThread();
        }
        TaskOutcome outcome;
        long started = System.nanoTime();
        try {
            outcome = handler.get().handle(new TaskHandler.Work(claim.taskId(), claim.payload(), claim.attempt()));
            if (outcome == null) {
                outcome = TaskOutcome.failure("the handler returned no outcome");
            }
        } catch (InterruptedException e) {
            outcome = TaskOutcome.failure("interrupted");
        } catch (Exception e) {
            outcome = TaskOutcome.failure(e.toString());
        } finally {
            endLease();
            finish();
        }
        long ran = System.nanoTime() - started;
        if (isLostOrHandedBack()) {
            timeRun("lost", ran);
            return; // the task is someone else's now: any write would be refused
        }
        timeRun(outcomeName(outcome), ran);
        record(outcome);
    }

    private void record(TaskOutcome outcome) {
        switch (outcome) {
            case TaskOutcome.Success success -> successes.complete(claim, success.result())
                    .whenComplete((written, e) -> inLogContext(() -> {
                        if (e != null) {
                            LOG.warnf("task %s attempt %d succeeded, but recording it failed: %s; the lease will "
                                    + "expire and recovery will retry the task", claim.taskId(), claim.attempt(),
                                    e.getMessage());
                        } else if (!written) {
                            LOG.infof("task %s attempt %d succeeded, but the claim was no longer current",
                                    claim.taskId(), claim.attempt());
                        }
                    }));
            case TaskOutcome.Failure failure -> logFailure(failure.error(),
                    transitions.fail(claim, failure.error(), false, backoffBase, backoffCap));
            case TaskOutcome.PermanentFailure failure -> logFailure(failure.error(),
                    transitions.fail(claim, failure.error(), true, backoffBase, backoffCap));
            case TaskOutcome.Later later -> {
                Optional<TaskStatus> to = transitions.later(claim, later.delay());
                LOG.debugf("task %s asks to be polled again in %s: %s", claim.taskId(), later.delay(),
                        to.map(Enum::name).orElse("the claim was no longer current"));
            }
        }
    }

    /** Stops the heartbeat before the outcome is recorded (which ends the lease), and waits for one running. */
    private void endLease() {
        heartbeat.cancel(false);
        synchronized (leaseGuard) {
            handlerDone = true;
        }
    }

    /** A failed attempt is worth a line: which task, which attempt, why, and whether it will be retried. */
    private void logFailure(String error, Optional<TaskStatus> to) {
        LOG.infof("task %s (%s) attempt %d failed: %s; %s", claim.taskId(), claim.type(), claim.attempt(), error,
                to.map(status -> status == TaskStatus.DEAD ? "the task is DEAD" : "it is retried after a backoff")
                        .orElse("the claim was no longer current"));
    }

    private static String outcomeName(TaskOutcome outcome) {
        return switch (outcome) {
            case TaskOutcome.Success success -> "success";
            case TaskOutcome.Failure failure -> "failure";
            case TaskOutcome.PermanentFailure failure -> "permanent_failure";
            case TaskOutcome.Later later -> "later";
        };
    }

    private void timeRun(String outcome, long nanos) {
        runTimes.record(claim.type(), outcome, nanos);
    }

    /** Runs {@code work} with this attempt's ids in the calling thread's logging context. */
    private void inLogContext(Runnable work) {
        try (LogContext context = LogContext.with(
                Map.of(MDC_TASK_ID, claim.taskId().toString(), MDC_ATTEMPT, Integer.toString(claim.attempt())))) {
            work.run();
        }
    }

    private void heartbeat() {
        inLogContext(this::extendLease);
    }

    private void extendLease() {
        synchronized (leaseGuard) {
            if (handlerDone) {
                return; // the outcome is being recorded, which ends the lease
            }
            try {
                if (!transitions.heartbeat(claim, lease)) {
                    LOG.warnf("task %s attempt %d: the processing lease was taken away; cancelling the handler",
                            claim.taskId(), claim.attempt());
                    interrupt(false);
                }
            } catch (RuntimeException e) {
                // PostgreSQL did not answer: try again; if the lease runs out, recovery hands the task on.
                LOG.warnf("task %s: heartbeat failed: %s", claim.taskId(), e.getMessage());
            }
        }
    }

    /** At shutdown, for a handler that did not finish in time: back to PENDING, without using an attempt. */
    void handBack() {
        try {
            transitions.later(claim, Duration.ZERO);
        } finally {
            interrupt(true);
        }
    }

    private synchronized void interrupt(boolean forShutdown) {
        if (forShutdown) {
            handedBack = true;
        } else {
            lost = true;
        }
        if (runner != null) {
            interrupted = true;
            runner.interrupt();
        }
    }

    private synchronized boolean isLostOrHandedBack() {
        return lost || handedBack;
    }

    /** Called on the handler's thread when it is done; clears an interrupt this attempt caused. */
    private synchronized void finish() {
        runner = null;
        if (interrupted) {
            Thread.interrupted();
        }
    }
}

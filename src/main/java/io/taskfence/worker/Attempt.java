package io.taskfence.worker;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.taskfence.TaskfenceConfig;
import io.taskfence.task.Claim;
import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskHandlers;
import io.taskfence.task.TaskOutcome;
import io.taskfence.task.TaskTransitions;

/**
 * One claimed attempt of one task: runs its handler on the calling thread while a heartbeat extends the
 * processing lease, then records the outcome carrying the claim. If a heartbeat is refused (the task was
 * recovered and handed on) the handler is interrupted and nothing more is written.
 */
final class Attempt {

    private static final Logger LOG = Logger.getLogger(Attempt.class);

    private final Claim claim;
    private final TaskTransitions transitions;
    private final TaskHandlers handlers;
    private final Duration lease;
    private final Duration backoffBase;
    private final Duration backoffCap;
    // Guarded by this: the heartbeat and shutdown threads interrupt, the handler's thread ends.
    private Thread runner;
    private boolean interrupted;
    private boolean lost;
    private boolean handedBack;
    // Held by a heartbeat while it extends the lease, so that the outcome is recorded only after it: a
    // heartbeat that ran after the outcome would find the claim gone and report the lease lost.
    private final Object leaseGuard = new Object();
    private boolean handlerDone;

    Attempt(Claim claim, TaskTransitions transitions, TaskHandlers handlers, TaskfenceConfig config) {
        this.claim = claim;
        this.transitions = transitions;
        this.handlers = handlers;
        this.lease = config.worker().lease();
        this.backoffBase = config.retry().backoffBase();
        this.backoffCap = config.retry().backoffCap();
    }

    void run(ScheduledExecutorService heartbeats) {
        Optional<TaskHandler> handler = handlers.forType(claim.type());
        if (handler.isEmpty()) {
            // Another replica (another version) may have it: an ordinary, retried failure.
            transitions.fail(claim, "no handler for type '" + claim.type() + "' on this replica", false, backoffBase,
                    backoffCap);
            return;
        }
        synchronized (this) {
            runner = Thread.currentThread();
        }
        long period = Math.max(1, lease.toMillis() / 3);
        ScheduledFuture<?> heartbeat = heartbeats.scheduleWithFixedDelay(this::heartbeat, period, period,
                TimeUnit.MILLISECONDS);
        TaskOutcome outcome;
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
            heartbeat.cancel(false);
            synchronized (leaseGuard) {
                handlerDone = true;
            }
            finish();
        }
        if (isLostOrHandedBack()) {
            return; // the task is someone else's now: any write would be refused
        }
        record(outcome);
    }

    private void record(TaskOutcome outcome) {
        switch (outcome) {
            case TaskOutcome.Success success -> transitions.complete(claim, success.result());
            case TaskOutcome.Failure failure -> transitions.fail(claim, failure.error(), false, backoffBase, backoffCap);
            case TaskOutcome.PermanentFailure failure -> transitions.fail(claim, failure.error(), true, backoffBase,
                    backoffCap);
            case TaskOutcome.Later later -> transitions.later(claim, later.delay());
        }
    }

    private void heartbeat() {
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

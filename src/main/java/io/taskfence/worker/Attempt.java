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
import io.taskfence.task.transition.Claim;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.handlers.TaskOutcome;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.transition.AttemptTransitions;

/**
 * One claimed attempt of one task: from its claim a heartbeat extends the processing lease, also while the
 * claim waits for a free worker ({@link #holdLease}); it runs its handler on the calling thread, then
 * records the outcome carrying the claim. The attempt ends without writing anything more when its lease
 * is lost: a heartbeat is refused (the task was cancelled, or recovered and handed on), or the lease runs out by this
 * replica's clock ({@link LeaseDeadline}) while heartbeats fail or hang, since recovery may then hand the
 * task on. The handler is then interrupted, or never started. While it runs, the handler's thread and
 * the heartbeat carry {@code taskId} and {@code attempt} in their logging context (MDC), and the
 * handler's run time is timed as {@code taskfence.task.run} (tags type, outcome).
 */
final class Attempt {

    private static final Logger LOG = Logger.getLogger(Attempt.class);
    static final String MDC_TASK_ID = "taskId";
    static final String MDC_ATTEMPT = "attempt";

    private final Claim claim;
    private final AttemptTransitions transitions;
    private final TaskHandlers handlers;
    private final SuccessBatches successes;
    private final RunTimes runTimes;
    private final LapsedLeases lapsedLeases;
    private final Duration lease;
    /**
     * How long a heartbeat waits for PostgreSQL's answer: half the period, so that one that hangs leaves
     * room for the next within the lease, and holds up the other attempts' heartbeats (one thread) briefly.
     */
    private final Duration heartbeatTimeout;
    private final Duration backoffBase;
    private final Duration backoffCap;
    private final LeaseDeadline deadline;
    // Guarded by this: the heartbeat, deadline and shutdown threads interrupt, the handler's thread ends.
    private ScheduledFuture<?> heartbeat;
    private ScheduledFuture<?> expiry;
    private ScheduledExecutorService deadlines;
    private Thread runner;
    private boolean started;
    private boolean interrupted;
    private boolean lost;
    private boolean handedBack;
    private boolean recording;
    // Held by a heartbeat while it extends the lease, so that the outcome is recorded only after it: a
    // heartbeat that ran after the outcome would find the claim gone and report the lease lost.
    private final Object leaseGuard = new Object();
    private boolean handlerDone;

    Attempt(Claim claim, long claimSentAtNanos, AttemptTransitions transitions, TaskHandlers handlers,
            TaskfenceConfig config, SuccessBatches successes, RunTimes runTimes, LapsedLeases lapsedLeases) {
        this.claim = claim;
        this.transitions = transitions;
        this.handlers = handlers;
        this.successes = successes;
        this.runTimes = runTimes;
        this.lapsedLeases = lapsedLeases;
        this.lease = config.worker().lease();
        this.heartbeatTimeout = Duration.ofMillis(Math.max(1, heartbeatPeriod().toMillis() / 2));
        this.backoffBase = config.retry().backoffBase();
        this.backoffCap = config.retry().backoffCap();
        this.deadline = new LeaseDeadline(lease, claimSentAtNanos);
    }

    String type() {
        return claim.type();
    }

    UUID taskId() {
        return claim.taskId();
    }

    private Duration heartbeatPeriod() {
        return Duration.ofMillis(Math.max(1, lease.toMillis() / 3));
    }

    /**
     * Starts the heartbeat, and the timer that gives the attempt up when its lease runs out here; called
     * once, when the claim commits, before the attempt waits for a worker. The timer has an executor of
     * its own, whose work never blocks, so that a heartbeat PostgreSQL does not answer cannot delay it.
     */
    void holdLease(ScheduledExecutorService heartbeats, ScheduledExecutorService deadlineTimer) {
        long period = heartbeatPeriod().toMillis();
        synchronized (this) {
            deadlines = deadlineTimer;
            heartbeat = heartbeats.scheduleWithFixedDelay(this::heartbeat, period, period, TimeUnit.MILLISECONDS);
            scheduleExpiry();
        }
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
            if (!mayRecord()) {
                stopHeartbeat();
                return;
            }
            endLease();
            logFailure(error, transitions.fail(claim, error, false, backoffBase, backoffCap));
            return;
        }
        boolean mayStart;
        synchronized (this) {
            if (deadline.passed()) {
                lapse(); // its expiry timer has not come round yet
            }
            mayStart = !lost && !handedBack;
            if (mayStart) {
                runner = Thread.currentThread();
                started = true;
            }
        }
        if (!mayStart) {
            stopHeartbeat();
            LOG.infof("task %s attempt %d: its lease %s while it waited for a worker; not run", claim.taskId(),
                    claim.attempt(), isHandedBack() ? "was handed back" : "was lost");
            return;
        }
        TaskOutcome outcome;
        long startedAt = System.nanoTime();
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
            finish();
        }
        long ran = System.nanoTime() - startedAt;
        if (!mayRecord()) {
            stopHeartbeat();
            timeRun("lost", ran);
            return; // the task is, or may now be, someone else's: nothing more is written for this attempt
        }
        endLease();
        timeRun(outcomeName(outcome), ran);
        record(outcome);
    }

    /**
     * Whether the handler's outcome is this attempt's to write: not if the lease was lost or handed back, nor
     * if it ran out here while the handler ran (the expiry timer may not have come round yet).
     */
    private synchronized boolean mayRecord() {
        if (deadline.passed()) {
            lapse();
        }
        recording = !lost && !handedBack;
        return recording;
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
        stopHeartbeat();
        synchronized (leaseGuard) {
            handlerDone = true;
        }
    }

    /** Stops the heartbeat and the expiry timer; a heartbeat already running is not waited for. */
    private synchronized void stopHeartbeat() {
        heartbeat.cancel(false);
        expiry.cancel(false);
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

    /** A heartbeat now, out of turn: the task was said to be cancelled, which a refused heartbeat confirms. */
    void heartbeatNow() {
        heartbeat();
    }

    private void extendLease() {
        synchronized (leaseGuard) {
            if (handlerDone || isLost()) {
                return; // the outcome is being recorded, which ends the lease; or the lease is gone
            }
            long sentAt = System.nanoTime();
            try {
                if (transitions.heartbeat(claim, lease, heartbeatTimeout)) {
                    deadline.extendFrom(sentAt);
                    synchronized (this) {
                        if (!lost && !handedBack && !recording) {
                            scheduleExpiry();
                        }
                    }
                } else {
                    LOG.warnf("task %s attempt %d: the processing lease was taken away (the task was cancelled, "
                            + "or recovered and handed on); interrupting the handler, recording nothing",
                            claim.taskId(), claim.attempt());
                    interrupt(false);
                }
            } catch (RuntimeException e) {
                // PostgreSQL did not answer: try again while the lease lasts; the expiry timer ends it here.
                LOG.warnf("task %s: heartbeat failed: %s; the lease runs out here in %d ms", claim.taskId(),
                        e.getMessage(), Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline.nanosLeft())));
            }
        }
    }

    /** Guarded by this: (re)arms the timer for the lease's current end here. */
    private void scheduleExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
        }
        expiry = deadlines.schedule(this::expire, Math.max(0, deadline.nanosLeft()), TimeUnit.NANOSECONDS);
    }

    /** Runs on the deadline timer when the lease's end here has come, unless a heartbeat extended it since. */
    private void expire() {
        inLogContext(() -> {
            synchronized (this) {
                if (deadline.passed()) {
                    lapse();
                }
            }
        });
    }

    /**
     * Guarded by this: gives the attempt up because its lease ran out here without a heartbeat PostgreSQL
     * confirmed. Recovery may hand the task on from the lease's end there, so the handler must stop first.
     */
    private void lapse() {
        if (lost || handedBack || recording) {
            return;
        }
        lapsedLeases.count(claim.type(), started);
        LOG.warnf("task %s attempt %d: its processing lease ran out here while PostgreSQL confirmed no heartbeat; %s",
                claim.taskId(), claim.attempt(), !started ? "it will not run"
                        : runner != null ? "cancelling the handler" : "its outcome is not recorded");
        heartbeat.cancel(false);
        interrupt(false);
    }

    /**
     * At shutdown, for a handler that did not finish in time: back to PENDING, without using an attempt. A
     * lost lease is not handed back: the task is no longer this attempt's.
     */
    void handBack() {
        if (isLost()) {
            interrupt(true);
            return;
        }
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

    private synchronized boolean isLost() {
        return lost;
    }

    private synchronized boolean isHandedBack() {
        return handedBack;
    }

    /** Called on the handler's thread when it is done; clears an interrupt this attempt caused. */
    private synchronized void finish() {
        runner = null;
        if (interrupted) {
            Thread.interrupted();
        }
    }
}

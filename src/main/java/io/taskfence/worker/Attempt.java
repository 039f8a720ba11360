package io.taskfence.worker;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.handlers.TaskOutcome;
import io.taskfence.task.transition.AttemptTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.tracing.AttemptSpan;
import io.taskfence.tracing.TaskTraces;

/**
 * One claimed attempt of one task: from its claim a heartbeat extends the processing lease, also while the
 * claim waits for a free worker ({@link #holdLease}); it runs its handler on the calling thread, then
 * records the outcome carrying the claim. The attempt ends without writing anything more when its lease
 * is lost: a heartbeat is refused (the task was cancelled, or recovered and handed on), or the lease runs out by this
 * replica's clock ({@link LeaseDeadline}) while heartbeats fail or hang, since recovery may then hand the
 * task on. The handler is then interrupted, or never started; past its time-out ({@link AttemptTimeout}) it is
 * interrupted too, and the attempt records its failure. While it runs, the handler's thread and
 * the heartbeat carry {@code taskId} and {@code attempt} in their logging context (MDC), and the
 * handler's run time is timed as {@code taskfence.task.run} (tags type, outcome), and is a span of the task's trace
 * (DESIGN.md, "Tracing").
 */
final class Attempt {

    private static final Logger LOG = Logger.getLogger(Attempt.class);

    private final Claim claim;
    private final AttemptTransitions transitions;
    private final TaskHandlers handlers;
    private final AttemptOutcomes outcomes;
    private final RunTimes runTimes;
    private final LapsedLeases lapsedLeases;
    private final TaskTraces traces;
    private final Duration lease;
    /**
     * How long a heartbeat waits for PostgreSQL's answer: half the period, so that one that hangs leaves
     * room for the next within the lease, and holds up the other attempts' heartbeats (one thread) briefly.
     */
    private final Duration heartbeatTimeout;
    private final LeaseDeadline deadline;
    private final AttemptTimeout timeout;
    // Guarded by this: the heartbeat, deadline and shutdown threads end the attempt, the handler's thread moves it on.
    private ScheduledFuture<?> heartbeat;
    private ScheduledFuture<?> expiry;
    private ScheduledExecutorService deadlines;
    private AttemptPhase phase = AttemptPhase.WAITING;
    /** The handler's thread while the phase is RUNNING, and until it finishes if the attempt ended meanwhile. */
    private Thread runner;
    // Held by a heartbeat while it extends the lease, so that the outcome is recorded only after it: a
    // heartbeat that ran after the outcome would find the claim gone and report the lease lost.
    private final Object leaseGuard = new Object();

    Attempt(Claim claim, long claimSentAtNanos, AttemptTransitions transitions, TaskHandlers handlers,
            TaskfenceConfig config, AttemptOutcomes outcomes, RunTimes runTimes, LapsedLeases lapsedLeases,
            TaskTraces traces) {
        this.claim = claim;
        this.traces = traces;
        this.transitions = transitions;
        this.handlers = handlers;
        this.outcomes = outcomes;
        this.runTimes = runTimes;
        this.lapsedLeases = lapsedLeases;
        this.lease = config.worker().lease();
        this.heartbeatTimeout = Duration.ofMillis(Math.max(1, heartbeatPeriod().toMillis() / 2));
        this.deadline = new LeaseDeadline(lease, claimSentAtNanos);
        this.timeout = new AttemptTimeout(claim.timeout());
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
            outcomes.record(claim, TaskOutcome.failure(error));
            return;
        }
        boolean mayStart;
        synchronized (this) {
            if (deadline.passed()) {
                lapse(); // its expiry timer has not come round yet
            }
            mayStart = phase == AttemptPhase.WAITING;
            if (mayStart) {
                runner = Thread.currentThread();
                phase = AttemptPhase.RUNNING;
                timeout.start(deadlines, this::timeOut);
            }
        }
        if (!mayStart) {
            stopHeartbeat();
            LOG.infof("task %s attempt %d: its lease %s while it waited for a worker; not run", claim.taskId(),
                    claim.attempt(), phase() == AttemptPhase.HANDED_BACK ? "was handed back" : "was lost");
            return;
        }
        TaskOutcome outcome;
        long startedAt = System.nanoTime();
        long endedAt;
        AttemptSpan span = null;
        try {
            span = traces.attempt(claim.taskId(), claim.type(), claim.attempt(), claim.traceParent());
            outcome = span.within(() -> handler.get().handle(outcomes.work(claim)));
            if (outcome == null) {
                outcome = TaskOutcome.failure("the handler returned no outcome");
            }
        } catch (InterruptedException e) {
            outcome = TaskOutcome.failure("interrupted");
        } catch (Exception e) {
            outcome = TaskOutcome.failure(e.toString());
        } finally {
            endedAt = System.nanoTime();
            finish(); // also when the span could not start: the timer must not interrupt this thread's next task
        }
        if (timeout.overran(endedAt)) {
            outcome = timeout.failure(); // what the handler made of the interrupt is beside the point
        }
        long ran = endedAt - startedAt;
        if (!mayRecord()) {
            stopHeartbeat();
            timeRun("lost", ran);
            if (span != null) {
                span.end("lost", "the attempt no longer held its task: cancelled, its lease ran out, or handed back");
            }
            return; // the task is, or may now be, someone else's: nothing more is written for this attempt
        }
        endLease();
        timeRun(RunTimes.outcomeName(outcome), ran);
        if (span != null) { // null: the span could not start, and the outcome says why
            span.end(RunTimes.outcomeName(outcome), RunTimes.errorOf(outcome));
        }
        outcomes.record(claim, outcome);
    }

    /**
     * Whether the handler's outcome is this attempt's to write: not if the lease was lost or handed back, nor
     * if it ran out here while the handler ran (the expiry timer may not have come round yet).
     */
    private synchronized boolean mayRecord() {
        if (deadline.passed()) {
            lapse();
        }
        if (!phase.holdsLease()) {
            return false;
        }
        phase = AttemptPhase.RECORDING;
        return true;
    }

    /**
     * Stops the heartbeat before the outcome is recorded (which ends the lease), and waits for one running: the
     * phase is RECORDING already, so none starts after it.
     */
    private void endLease() {
        stopHeartbeat();
        synchronized (leaseGuard) {
            // nothing to do: taking the guard is the wait
        }
    }

    /** Stops the heartbeat and the expiry timer; a heartbeat already running is not waited for. */
    private synchronized void stopHeartbeat() {
        heartbeat.cancel(false);
        expiry.cancel(false);
    }

    private void timeRun(String outcome, long nanos) {
        runTimes.record(claim.type(), outcome, nanos);
    }

    /** Runs {@code work} with this attempt's ids in the calling thread's logging context. */
    private void inLogContext(Runnable work) {
        AttemptOutcomes.inLogContext(claim, work);
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
            AttemptPhase now = phase();
            if (now == AttemptPhase.RECORDING || now.ended()) {
                return; // the outcome is being recorded, which ends the lease; or the attempt is over
            }
            long sentAt = System.nanoTime();
            try {
                if (transitions.heartbeat(claim, lease, heartbeatTimeout)) {
                    deadline.extendFrom(sentAt);
                    synchronized (this) {
                        if (phase.holdsLease()) {
                            scheduleExpiry();
                        }
                    }
                } else {
                    LOG.warnf("task %s attempt %d: the processing lease was taken away (the task was cancelled, "
                            + "or recovered and handed on); interrupting the handler, recording nothing",
                            claim.taskId(), claim.attempt());
                    end(AttemptPhase.LOST);
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
        if (!phase.holdsLease()) {
            return;
        }
        lapsedLeases.count(claim.type(), phase != AttemptPhase.WAITING);
        LOG.warnf("task %s attempt %d: its processing lease ran out here while PostgreSQL confirmed no heartbeat; %s",
                claim.taskId(), claim.attempt(), switch (phase) {
                    case WAITING -> "it will not run";
                    case RUNNING -> "cancelling the handler";
                    default -> "its outcome is not recorded";
                });
        heartbeat.cancel(false);
        end(AttemptPhase.LOST);
    }

    /**
     * At shutdown, for a handler that did not finish in time: back to PENDING, without using an attempt. A
     * lost lease is not handed back: the task is no longer this attempt's.
     */
    void handBack() {
        if (phase() == AttemptPhase.LOST) {
            end(AttemptPhase.HANDED_BACK);
            return;
        }
        try {
            transitions.later(claim, Duration.ZERO);
        } finally {
            end(AttemptPhase.HANDED_BACK);
        }
    }

    /** Ends the attempt ({@code to} is LOST or HANDED_BACK) unless it has ended already, and stops its handler. */
    private synchronized void end(AttemptPhase to) {
        if (!phase.ended()) {
            phase = to;
        }
        if (runner != null) {
            runner.interrupt();
        }
    }

    private synchronized AttemptPhase phase() {
        return phase;
    }

    /** Runs on the deadline timer when the handler's time-out ({@link AttemptTimeout}) comes while it runs. */
    private synchronized void timeOut() {
        if (phase == AttemptPhase.RUNNING) {
            timeout.interrupting();
            runner.interrupt();
        }
    }

    /**
     * Called on the handler's thread when it is done: RUNNING → FINISHED; if the attempt ended or timed out
     * meanwhile, it interrupted this thread, and the interrupt is cleared.
     */
    private synchronized void finish() {
        runner = null;
        timeout.stop();
        if (phase != AttemptPhase.RUNNING || timeout.interrupted()) {
            Thread.interrupted();
        }
        if (phase == AttemptPhase.RUNNING) {
            phase = AttemptPhase.FINISHED;
        }
    }
}

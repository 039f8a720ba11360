package io.taskfence.worker;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.taskfence.handlers.TaskOutcome;
import io.taskfence.task.TaskRows;

/**
 * How long an {@link Attempt}'s handler may run here (DESIGN.md, "Task lifecycle", "Attempt time-outs"), counted from
 * its start: a claim that waits for a worker has not used any of it. When the time-out comes while the handler runs,
 * the attempt interrupts it; a handler that returns at or past its time-out, by the time it took and not by when the
 * timer came round, records the failure {@code timed out after <timeout>} through the ordinary outcome path, whatever
 * it returned, so the task is retried as after any failure. The lease is held meanwhile: a handler that ignores the
 * interrupt holds its task (and its worker) until it returns. None: no timer at all.
 */
final class AttemptTimeout {

    private final Duration timeout;
    private long startedAt;
    private ScheduledFuture<?> timer;
    private volatile boolean interrupted;

    /** {@code timeout}: the claim's, null for none. */
    AttemptTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * Arms the timer as the handler starts: {@code onTimeout} runs on {@code timers} when the time-out comes. The start
     * is taken before the timer is armed, so that a handler the timer interrupted has always {@link #overran}.
     */
    void start(ScheduledExecutorService timers, Runnable onTimeout) {
        startedAt = System.nanoTime();
        if (timeout != null) {
            timer = timers.schedule(onTimeout, timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** The handler returned: the timer, if it has not fired, never will. */
    void stop() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** The timer interrupted the handler: the interrupt is this attempt's own, to clear when the handler returns. */
    void interrupting() {
        interrupted = true;
    }

    boolean interrupted() {
        return interrupted;
    }

    /** Whether a handler that returned at {@code endedAt} ({@link System#nanoTime}) ran to its time-out or past it. */
    boolean overran(long endedAt) {
        return timeout != null && endedAt - startedAt >= timeout.toNanos();
    }

    /** The failure a timed-out attempt records, worded as PostgreSQL words a remote one's. */
    TaskOutcome failure() {
        return TaskOutcome.failure("timed out after " + TaskRows.durationText(timeout.toMillis()));
    }
}

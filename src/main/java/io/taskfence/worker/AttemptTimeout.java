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
 * the attempt interrupts it and records the failure {@code timed out after <timeout>} through the ordinary outcome
 * path, whatever the handler then returns, so the task is retried as after any failure. The lease is held meanwhile:
 * a handler that ignores the interrupt holds its task (and its worker) until it returns. None: no timer at all.
 */
final class AttemptTimeout {

    private final Duration timeout;
    private ScheduledFuture<?> timer;
    private volatile boolean reached;

    /** {@code timeout}: the claim's, null for none. */
    AttemptTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /** Arms the timer as the handler starts: {@code onTimeout} runs on {@code timers} when the time-out comes. */
    void start(ScheduledExecutorService timers, Runnable onTimeout) {
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

    /** The time-out came while the handler ran: its outcome is {@link #failure()}. */
    void reach() {
        reached = true;
    }

    boolean reached() {
        return reached;
    }

    /** The failure a timed-out attempt records, worded as PostgreSQL words a remote one's. */
    TaskOutcome failure() {
        return TaskOutcome.failure("timed out after " + TaskRows.durationText(timeout.toMillis()));
    }
}

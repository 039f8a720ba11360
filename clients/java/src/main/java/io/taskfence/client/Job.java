package io.taskfence.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** One claimed task as a handler gets it, whether its claim still holds, and its progress reports. */
public final class Job {

    private static final Logger LOG = System.getLogger(Job.class.getName());
    private static final long REPORT_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ClaimedTask task;
    /** When the claim came, on this clock: the attempt's time-out counts from here. */
    private final long claimedNanos = System.nanoTime();
    private final AtomicBoolean superseded = new AtomicBoolean();
    private volatile Thread runner;
    private final TaskfenceClient client;
    // Guarded by this: the report held back (a second had not passed since the last one sent), and when that was.
    private Object heldBack;
    private long sentNanos = claimedNanos - REPORT_EVERY_NANOS;
    private volatile boolean ending;

    Job(ClaimedTask task, TaskfenceClient client) {
        this.task = task;
        this.client = client;
    }

    /**
     * Reports how far the job has come, e.g. {@code Map.of("done", 40, "total", 100, "message", "page 40")} (any value
     * that writes as a JSON object of at most 4 KiB): the task's {@code progress} shows it within a second. At most one
     * report a second is sent; one that comes sooner is held back and sent a second after the one before (the latest
     * held back then), or with the job's end, so the latest is always sent. A report that cannot be sent (null, not an
     * object, the service refusing it) is logged, never thrown: progress does not fail a job. A superseded claim's
     * report supersedes the job, as a heartbeat's 409 does.
     */
    public void progress(Object progress) {
        if (progress == null) {
            LOG.log(Level.WARNING, "task {0}: a progress report of null was not sent", task.taskId());
            return;
        }
        synchronized (this) {
            long wait = sentNanos + REPORT_EVERY_NANOS - System.nanoTime();
            if (wait > 0) {
                if (heldBack == null && !ending) { // the first held back: sent once the second is over
                    CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS).execute(this::sendHeldBack);
                }
                heldBack = progress;
                return;
            }
            sentNanos = System.nanoTime();
        }
        send(progress);
    }

    /**
     * The report held back, if any, which the job's end carries (so that it reaches the replica the end does); none is
     * sent after this.
     */
    Object ending() {
        ending = true;
        synchronized (this) {
            Object last = heldBack;
            heldBack = null;
            return last;
        }
    }

    /** Sends the report held back, if any: a second after the last one sent. */
    private void sendHeldBack() {
        Object last;
        synchronized (this) {
            last = heldBack;
            heldBack = null;
            if (last != null) {
                sentNanos = System.nanoTime();
            }
        }
        if (last != null) {
            send(last);
        }
    }

    private void send(Object progress) {
        if (superseded()) {
            return;
        }
        try {
            client.progress(task, progress);
        } catch (ClaimSupersededException gone) {
            if (!ending) { // once the end is under way, its own answer says what became of the claim
                supersede();
            }
        } catch (TaskfenceException | IllegalArgumentException failed) {
            LOG.log(Level.WARNING, "task {0}: a progress report was not taken ({1})", task.taskId(), failed.getMessage());
        }
    }

    public ClaimedTask task() {
        return task;
    }

    /** True once the claim no longer holds its task: stop, and write nothing more for it. */
    public boolean superseded() {
        return superseded.get();
    }

    long claimedNanos() {
        return claimedNanos;
    }

    void runOn(Thread thread) {
        runner = thread;
    }

    /** The claim no longer holds: marks the job and interrupts its handler (once). */
    void supersede() {
        if (superseded.compareAndSet(false, true)) {
            Thread running = runner;
            if (running != null) {
                running.interrupt();
            }
        }
    }
}

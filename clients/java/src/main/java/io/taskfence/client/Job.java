package io.taskfence.client;

import java.util.concurrent.atomic.AtomicBoolean;

/** One claimed task as a handler gets it, and whether its claim still holds. */
public final class Job {

    private final ClaimedTask task;
    /** When the claim came, on this clock: the attempt's time-out counts from here. */
    private final long claimedNanos = System.nanoTime();
    private final AtomicBoolean superseded = new AtomicBoolean();
    private volatile Thread runner;

    Job(ClaimedTask task) {
        this.task = task;
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

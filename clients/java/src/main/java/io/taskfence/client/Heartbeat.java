package io.taskfence.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/** One job's heartbeats, one at a time: a 409, or the lease running out here unconfirmed, supersedes the job. */
final class Heartbeat implements Runnable {

    // The worker's logger: what users configure for the worker covers its heartbeats.
    private static final Logger LOG = System.getLogger(Worker.class.getName());

    private final TaskfenceClient client;
    private final Job job;
    private final AtomicBoolean sending = new AtomicBoolean();
    private volatile long confirmedNanos;

    Heartbeat(TaskfenceClient client, Job job, long claimedNanos) {
        this.client = client;
        this.job = job;
        this.confirmedNanos = claimedNanos;
    }

    /** Sends a heartbeat on a virtual thread, unless the one before is still under way: a slow one is not overtaken. */
    void sendUnlessSending() {
        if (sending.compareAndSet(false, true)) {
            Thread.ofVirtual().name("taskfence-heartbeat-" + job.task().taskId()).start(this);
        }
    }

    @Override
    public void run() {
        try {
            beat();
        } finally {
            sending.set(false);
        }
    }

    private void beat() {
        if (job.superseded()) {
            return;
        }
        long sent = System.nanoTime();
        try {
            client.heartbeat(job.task());
            confirmedNanos = sent;
        } catch (ClaimSupersededException superseded) {
            LOG.log(Level.INFO, "task {0}: {1}; stopping it", job.task().taskId(),
                    superseded.problem().path("detail").asText());
            job.supersede();
        } catch (TaskfenceException unknown) {
            if (unknown.status() == 404) { // not a claim of this key (the key was changed): it cannot hold
                job.supersede();
                return;
            }
            lapsedHere(unknown);
        } catch (RuntimeException failed) {
            lapsedHere(failed);
        }
    }

    /** A heartbeat failed: the job stops once its lease has run out on this clock, unconfirmed. */
    private void lapsedHere(RuntimeException failed) {
        LOG.log(Level.WARNING, "task {0}: heartbeat failed ({1})", job.task().taskId(), failed.getMessage());
        if (System.nanoTime() - confirmedNanos > job.task().leaseMillis() * 900_000L) {
            LOG.log(Level.WARNING, "task {0}: its lease ran out here unconfirmed; stopping it", job.task().taskId());
            job.supersede();
        }
    }
}

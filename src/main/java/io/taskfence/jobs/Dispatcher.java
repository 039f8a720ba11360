package io.taskfence.jobs;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLease;
import io.taskfence.queue.TaskQueue;
import io.taskfence.store.FenceToken;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.transition.DispatchBatch;
import io.taskfence.types.RemoteTypes;

/**
 * Moves due tasks to the queue, on one replica at a time: under the dispatch lock, each batch goes
 * PENDING/FAILED → ENQUEUED in one fenced transaction first, and is pushed to the stream second (a
 * worker must never find a message whose row is not ENQUEUED yet). A crash between the two leaves rows
 * ENQUEUED without messages; recovery returns them to PENDING.
 */
@ApplicationScoped
class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class);
    /** How often a dispatcher waiting for room looks at the queue's length (one XLEN). */
    private static final Duration REFILL_POLL = Duration.ofMillis(10);

    private final FencedJobs jobs;
    private final DispatchBatch transitions;
    private final TaskQueue queue;
    private final RemoteTypes remote;
    private final Duration interval;
    private final int batchSize;
    private final int maxQueueDepth;
    private final int tasksPerEntry;
    private final boolean enabled;
    private final ExecutorService nudges = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("dispatch-nudge").daemon().factory());
    private final AtomicBoolean nudgePending = new AtomicBoolean();

    Dispatcher(FencedJobs jobs, DispatchBatch transitions, TaskQueue queue, RemoteTypes remote, TaskfenceConfig config) {
        this.remote = remote;
        this.jobs = jobs;
        this.transitions = transitions;
        this.queue = queue;
        this.interval = config.dispatch().interval();
        this.batchSize = config.dispatch().batchSize();
        this.maxQueueDepth = config.dispatch().maxQueueDepth();
        this.tasksPerEntry = config.dispatch().tasksPerEntry();
        this.enabled = config.dispatch().enabled();
    }

    @Scheduled(identity = "dispatch", every = "${taskfence.dispatch.interval}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        runIfFree(Duration.ZERO);
    }

    /**
     * Starts a run soon, because a task was just submitted: a task on an idle system then starts within
     * milliseconds instead of at the next tick. Nudges coalesce: while one waits, more add nothing; if
     * another replica holds the lock, the run waits (woken by its release) up to one interval.
     */
    void nudge() {
        if (enabled && nudgePending.compareAndSet(false, true)) {
            nudges.execute(() -> {
                nudgePending.set(false);
                runIfFree(interval);
            });
        }
    }

    /** Another room made tasks due: a submission, a resumed type, a limited type's task that ended. */
    void onDue(@Observes TasksBecameDue event) {
        nudge();
    }

    private void runIfFree(Duration waitAtMost) {
        jobs.run(JobLocks.DISPATCH, waitAtMost, this::dispatch);
    }

    /**
     * Keeps the queue topped up for one interval: while tasks are due it moves them in batches, and while
     * the queue is nearly full it waits for the workers to make room (half the bound, or a batch) instead
     * of leaving them idle until the next tick. Ends when no task is due, the interval is over (then it nudges
     * a run to follow at once), the lease is lost, or a push is refused.
     */
    void dispatch(FencedLease held, FenceToken fence) {
        long endNanos = System.nanoTime() + interval.toNanos();
        int refillAt = Math.max(1, Math.min(batchSize, maxQueueDepth / 2));
        boolean waiting = false;
        while (held.mayGoOn()) {
            // Counted as if every entry were full: an upper bound of the tasks queued.
            int room = (int) Math.min(batchSize, maxQueueDepth - queue.depth() * tasksPerEntry);
            if (room < refillAt) {
                if (!waiting && !pushed(held, remoteOnly(fence))) {
                    return;
                }
                // Wait only while tasks are due. A due task stops being due only when this holder enqueues
                // it (or a client cancels it), so one look when the wait starts is enough.
                if (!waiting && !transitions.anyDue()) {
                    return;
                }
                waiting = true;
                if (System.nanoTime() - endNanos >= 0) {
                    // Tasks are still due: a run follows at once, so that the workers do not idle until the
                    // tick after next (the tick that falls during this run is skipped).
                    nudge();
                    return;
                }
                if (!pause(REFILL_POLL)) {
                    return; // the lease was lost
                }
                continue;
            }
            waiting = false;
            DispatchBatch.Batch batch = transitions.enqueueDue(fence, room, remoteStreamRoom());
            if (!pushed(held, batch)) {
                return;
            }
            if (batch.taken() < room) {
                return; // none left due
            }
            if (System.nanoTime() - endNanos >= 0) {
                nudge(); // more may be due: the next run follows at once, and the lease is not held without end
                return;
            }
        }
    }

    /**
     * While the replicas' stream is full, one batch of remote types' tasks alone, so that a backlog of the service's
     * own types does not hold back the remote ones: run once as each wait starts (the wait then looks at the one
     * stream only, every 10 ms), so a remote type waits at most an interval behind a full stream.
     */
    private DispatchBatch.Batch remoteOnly(FenceToken fence) {
        Map<String, Integer> room = remoteStreamRoom();
        int free = (int) Math.min(batchSize, room.values().stream().mapToLong(Integer::longValue).sum());
        return free == 0 ? DispatchBatch.Batch.NONE : transitions.enqueueRemoteDue(fence, free, room);
    }

    /** How many more tasks each remote type's stream may hold (its entries carry one task each). */
    private Map<String, Integer> remoteStreamRoom() {
        Map<String, Integer> room = new TreeMap<>();
        remote.names().forEach(type -> room.put(type, (int) Math.max(0, maxQueueDepth - queue.depthRemote(type))));
        return room;
    }

    /** Pushes the batch's ids to their streams; false if the lock was lost first (the rows wait for recovery). */
    private boolean pushed(FencedLease held, DispatchBatch.Batch batch) {
        List<UUID> ids = batch.enqueued();
        if (!ids.isEmpty() && !queue.push(held, ids, tasksPerEntry)) {
            LOG.warnf("dispatch lost its lock between commit and push; %d tasks wait for recovery", ids.size());
            return false;
        }
        for (Map.Entry<String, List<UUID>> type : batch.remote().entrySet()) {
            if (!queue.pushRemote(held, type.getKey(), type.getValue())) {
                LOG.warnf("dispatch lost its lock between commit and push; %d tasks of %s wait for recovery",
                        type.getValue().size(), type.getKey());
                return false;
            }
        }
        return true;
    }

    /** Sleeps; false if interrupted (the lease was lost). */
    private static boolean pause(Duration pause) {
        try {
            Thread.sleep(pause);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @PreDestroy
    void close() {
        nudges.shutdownNow();
    }
}

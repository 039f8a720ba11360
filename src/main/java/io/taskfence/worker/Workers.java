package io.taskfence.worker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.lock.LockSettings;
import io.taskfence.queue.TaskQueue.Message;
import io.taskfence.queue.TaskQueue;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.transition.AttemptTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.ProgressReports;
import io.taskfence.tracing.TaskTraces;
import io.taskfence.types.TypeLimits;

/**
 * This replica's workers: one reader takes messages from the queue's consumer group as slots free up,
 * claims their tasks (ENQUEUED → PROCESSING) in one conditional statement per batch read, acknowledges and
 * deletes the batch's messages, and hands each won claim to a bounded pool that runs its handler
 * ({@code taskfence.worker.concurrency} at once). There are {@code taskfence.worker.claim-ahead} more slots
 * than workers: those claims wait for a worker, their leases held by their heartbeats, so that a worker
 * finishing a short task finds the next one claimed, and a claim's statement serves more tasks. Successes
 * are written in batches too.
 */
@ApplicationScoped
public class Workers {

    private static final Logger LOG = Logger.getLogger(Workers.class);
    private static final Duration LONGEST_READ_PAUSE = Duration.ofSeconds(10);

    private final TaskQueue queue;
    private final AttemptTransitions transitions;
    private final TaskHandlers handlers;
    private final TaskfenceConfig config;
    private final RunTimes runTimes;
    private final TaskTraces traces;
    private final LapsedLeases lapsedLeases;
    private final CancelSignals cancels;
    private final TypeLimits limits;
    private final Event<TasksBecameDue> due;
    private final String consumer;
    private final Slots slots;
    /**
     * Free slots the reader waits for before it reads: with claims ahead, a read waits until the claimed
     * tasks are down to those running, so that each claim statement serves a batch instead of a slot or
     * two, and the workers still never wait (db-scheduler's lower limit does the same).
     */
    private final int refillAt;
    /**
     * Task ids a message may carry, as far as this replica knows: its own dispatch setting, or more if it read a
     * longer message (another replica's dispatch pushed it with a higher setting). Reads are sized by it. The
     * reader thread's alone.
     */
    private int longestEntry;
    /** How long one read waits for messages: well within the Redis client's time-out, so it never trips it. */
    private final Duration readBlock;
    /**
     * How often the reader takes over messages that another consumer read but never claimed (its replica
     * died or froze right after the read): a third of the lease they must have been idle for, so such a
     * task waits about one lease, as a task whose worker died does.
     */
    private final Duration reclaimEvery;
    /** Attempts claimed here and not finished: running, or waiting for a worker. */
    private final Set<Attempt> claimedHere = ConcurrentHashMap.newKeySet();
    private ExecutorService pool;
    private ScheduledExecutorService heartbeats;
    /** Ends attempts whose lease ran out here; apart from the heartbeats, which can wait on PostgreSQL. */
    private ScheduledExecutorService leaseDeadlines;
    private SuccessBatches successes;
    private AttemptOutcomes outcomes;
    private final ProgressReports progress;
    private volatile Thread reader;
    private volatile boolean stopping;

    Workers(TaskQueue queue, AttemptTransitions transitions, TaskHandlers handlers, TaskfenceConfig config,
            LockSettings settings, MeterRegistry metrics, CancelSignals cancels, TypeLimits limits,
            Event<TasksBecameDue> due, @ConfigProperty(name = "quarkus.redis.timeout") Duration redisTimeout,
            TaskTraces traces, ProgressReports progress) {
        this.progress = progress;
        this.traces = traces;
        this.limits = limits;
        this.due = due;
        this.queue = queue;
        this.transitions = transitions;
        this.handlers = handlers;
        this.config = config;
        this.runTimes = new RunTimes(metrics);
        this.lapsedLeases = new LapsedLeases(metrics, handlers.types());
        this.cancels = cancels;
        this.consumer = settings.replicaId() + "/" + UUID.randomUUID().toString().substring(0, 8);
        this.slots = new Slots(config.worker().concurrency() + config.worker().claimAhead());
        this.refillAt = Math.max(1, config.worker().claimAhead());
        this.longestEntry = config.dispatch().tasksPerEntry();
        this.readBlock = Duration.ofMillis(Math.max(10, Math.min(1_000, redisTimeout.toMillis() / 2)));
        this.reclaimEvery = Duration.ofMillis(Math.max(readBlock.toMillis(), config.worker().lease().toMillis() / 3));
    }

    /**
     * After the extensions' start-up observers (default priority): Quarkus's Redis extension creates its data
     * sources there, in a map that is not thread-safe, and a reader thread started before it finished could
     * create one at the same moment (seen: a ConcurrentModificationException failing the start).
     */
    void start(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent started) {
        if (!config.worker().enabled()) {
            return;
        }
        pool = Executors.newFixedThreadPool(config.worker().concurrency(), Thread.ofPlatform().name("task-", 0).factory());
        ScheduledThreadPoolExecutor beats = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("task-heartbeat").daemon().factory());
        // Every attempt cancels its heartbeat when it ends; kept, a busy replica's queue would hold a lease's
        // worth of dead entries.
        beats.setRemoveOnCancelPolicy(true);
        heartbeats = beats;
        ScheduledThreadPoolExecutor deadlines = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("task-lease-deadline").daemon().factory());
        deadlines.setRemoveOnCancelPolicy(true); // re-armed at every heartbeat
        leaseDeadlines = deadlines;
        successes = new SuccessBatches(transitions, done -> done.forEach(claim -> madeRoom(claim.type())));
        outcomes = new AttemptOutcomes(transitions, successes, progress, config);
        cancels.listen(this::cancelled, leaseDeadlines);
        reader = Thread.ofPlatform().name("task-reader").start(this::readUntilStopped);
        LOG.infof("workers started: consumer %s, %d at once, %d claimed ahead", consumer,
                config.worker().concurrency(), config.worker().claimAhead());
    }

    /** True if the queue reader was started and ended without being asked to: this replica runs no task. */
    public boolean readerDied() {
        Thread started = reader;
        return started != null && !started.isAlive() && !stopping;
    }

    private void readUntilStopped() {
        long nextReclaim = System.nanoTime();
        boolean groupReady = false;
        int failures = 0;
        while (!stopping) {
            try {
                if (!groupReady) {
                    queue.ensureGroup();
                    groupReady = true;
                }
                // Bounded, so that the loop sees a shutdown within readBlock without being interrupted
                // (an interrupted read could drop a batch Redis has already delivered to this consumer).
                if (!slots.tryAcquire(refillAt, readBlock.toMillis(), TimeUnit.MILLISECONDS)) {
                    continue;
                }
                int free = refillAt + slots.drainPermits();
                List<Claim> claimed = List.of();
                long claimSentAt = 0;
                try {
                    int entries = Math.max(1, free / longestEntry);
                    List<Message> messages;
                    if (System.nanoTime() - nextReclaim >= 0) {
                        messages = queue.reclaim(consumer, config.worker().lease(), entries);
                        nextReclaim = System.nanoTime() + reclaimEvery.toNanos();
                    } else {
                        messages = queue.read(consumer, entries, readBlock);
                    }
                    claimSentAt = System.nanoTime(); // the claims' leases count from here on this replica
                    messages.forEach(message -> longestEntry = Math.max(longestEntry, message.taskIds().size()));
                    claimed = claim(messages);
                } finally {
                    slots.settle(free, claimed.size());
                }
                for (Claim claim : claimed) {
                    Attempt attempt = new Attempt(claim, claimSentAt, transitions, handlers, config, outcomes,
                            runTimes, lapsedLeases, traces);
                    attempt.holdLease(heartbeats, leaseDeadlines);
                    claimedHere.add(attempt);
                    pool.execute(() -> runThenFreeSlot(attempt));
                }
                failures = 0;
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (stopping) {
                    return; // the read was interrupted by the shutdown
                }
                // Redis is down or lost the group: back off, up to a pause that still notices its return soon.
                groupReady = false;
                Duration pause = readBlock.multipliedBy(1L << Math.min(failures++, 5));
                pause = pause.compareTo(LONGEST_READ_PAUSE) > 0 ? LONGEST_READ_PAUSE : pause;
                LOG.warnf("reading the queue failed: %s; trying again in %d ms", e.toString(), pause.toMillis());
                sleepQuietly(pause);
            }
        }
    }

    /**
     * Claims the tasks of a batch read in one statement, then acknowledges and deletes the batch's messages,
     * whichever claims won: a message has done its work once its claim committed or was refused. If the
     * claim fails (PostgreSQL), the messages stay pending and another reader's XAUTOCLAIM retries them.
     */
    private List<Claim> claim(List<Message> messages) {
        if (messages.isEmpty()) {
            return List.of();
        }
        List<Claim> claimed;
        try {
            List<UUID> ids = messages.stream().flatMap(message -> message.taskIds().stream()).toList();
            claimed = transitions.claim(ids, consumer, config.worker().lease());
        } catch (TaskStoreException e) {
            LOG.warnf("claiming %d tasks failed: %s; their messages are taken over after %s", messages.size(),
                    e.getMessage(), config.worker().lease());
            return List.of();
        }
        try {
            queue.done(messages);
        } catch (RuntimeException e) {
            // The claims stand (the table is the truth); the messages stay pending until a reclaim finds
            // their tasks claimed and acknowledges them.
            LOG.warnf("acknowledging %d messages failed: %s; running their tasks anyway", messages.size(),
                    e.getMessage());
        }
        return claimed;
    }

    /**
     * A task was cancelled (a message of {@link CancelSignals}, on an event loop): if it was claimed here, its
     * attempt heartbeats now on the heartbeat thread, and a refusal interrupts its handler at once.
     */
    private void cancelled(UUID taskId) {
        for (Attempt attempt : claimedHere) {
            if (attempt.taskId().equals(taskId)) {
                try {
                    heartbeats.execute(attempt::heartbeatNow);
                } catch (RejectedExecutionException e) {
                    return; // shutting down
                }
            }
        }
    }

    private void runThenFreeSlot(Attempt attempt) {
        try {
            attempt.run();
        } catch (RuntimeException e) {
            LOG.errorf(e, "task %s: the worker failed; its lease will expire and recovery will retry it",
                    attempt.taskId());
        } finally {
            claimedHere.remove(attempt);
            slots.release();
            madeRoom(attempt.type()); // a failure or postponement is written by now; a success when its batch commits
        }
    }

    /**
     * A task of {@code type} left PROCESSING (or is about to): if the type bounds how many run at once (its
     * max-concurrency or max-per-key), another of its tasks may go now, so dispatch runs soon instead of at its next tick (nudges coalesce).
     */
    private void madeRoom(String type) {
        if (limits.of(type).boundsRunning()) {
            due.fire(new TasksBecameDue());
        }
    }

    /** Stops claiming, lets running handlers finish within the drain time-out, hands the rest back. */
    void stop(@Observes ShutdownEvent shutdown) {
        if (reader == null) {
            return;
        }
        stopping = true;
        try {
            // The reader finishes its current read (at most readBlock, or the Redis time-out if Redis hangs)
            // and hands what it got to the pool, where those tasks are claimed and drained like the rest.
            reader.join(readBlock.plusSeconds(6).toMillis());
            if (reader.isAlive()) {
                reader.interrupt();
            }
            pool.shutdown();
            if (!pool.awaitTermination(config.worker().drainTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warnf("%d claimed tasks still running or waiting after %s; handing them back", claimedHere.size(),
                        config.worker().drainTimeout());
                claimedHere.forEach(Attempt::handBack);
                pool.shutdownNow();
                pool.awaitTermination(5, TimeUnit.SECONDS);
            }
            if (!queue.leave(consumer)) {
                LOG.infof("consumer %s leaves unfinished messages; another replica reclaims them", consumer);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warnf("leaving the queue's consumer group failed: %s", e.getMessage());
        } finally {
            cancels.close();
            closeQuietly(successes);
            heartbeats.shutdownNow();
            leaseDeadlines.shutdownNow();
        }
    }

    private static void closeQuietly(SuccessBatches batches) {
        try {
            batches.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

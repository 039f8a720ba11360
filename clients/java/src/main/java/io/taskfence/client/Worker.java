package io.taskfence.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A worker loop for remote task types (docs/DESIGN.md, "Remote workers"): claims as many tasks as it has free slots,
 * runs each handler on a thread of its own with a heartbeat every third of the lease, and ends each claim with the
 * handler's result or failure. Once a claim no longer holds its task (a heartbeat or the end answered 409: the task
 * was cancelled, or this worker stalled past its lease and another took it over), or once the task's time-out has
 * passed since the claim, the handler's thread is interrupted and nothing more is written for it. {@link #stop} (and,
 * with {@link #stopOnShutdown}, SIGTERM) stops the claiming, gives running handlers the drain time, then hands back
 * the claims of those still running. While the service cannot be reached it backs off, up to 30 seconds.
 */
public final class Worker {

    private static final Logger LOG = System.getLogger(Worker.class.getName());
    private static final Duration LONGEST_BACKOFF = Duration.ofSeconds(30);
    /** The most tasks one claim request may ask for. */
    private static final int MOST_AT_ONCE = 100;

    private final TaskfenceClient client;
    private final List<String> types;
    private final TaskHandler handler;
    private final int concurrency;
    private final Duration wait;
    private final String name;
    private final Duration drainTimeout;
    private final Semaphore slots;
    private final Set<Job> running = ConcurrentHashMap.newKeySet();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    /** The claim request under way, cancelled by {@link #stop} so that a long wait does not hold the shutdown. */
    private volatile CompletableFuture<List<ClaimedTask>> claiming;

    public Worker(TaskfenceClient client, List<String> types, TaskHandler handler, int concurrency, Duration wait,
            String name, Duration drainTimeout) {
        this.client = client;
        this.types = List.copyOf(types);
        this.handler = handler;
        this.concurrency = concurrency;
        this.wait = wait;
        this.name = name;
        this.drainTimeout = drainTimeout;
        this.slots = new Semaphore(concurrency);
    }

    /** Makes SIGTERM (any JVM shutdown) stop the worker and wait for its drain before the JVM exits. */
    public Worker stopOnShutdown() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop();
            try {
                stopped.await(drainTimeout.plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "taskfence-worker-shutdown"));
        return this;
    }

    /** Stops claiming (the claim under way is abandoned); {@link #run} then drains and returns. */
    public void stop() {
        stopping = true;
        CompletableFuture<List<ClaimedTask>> underWay = claiming;
        if (underWay != null) {
            underWay.cancel(true);
        }
    }

    /** Claims and runs tasks until {@link #stop}; then drains, hands back what still runs, and returns. */
    public void run() throws InterruptedException {
        ExecutorService handlers = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().name("taskfence-job-", 0).factory());
        // The scheduler only hands each heartbeat to a thread of its own: one that hangs holds up no other job's.
        ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("taskfence-heartbeat").daemon().factory());
        try {
            int failures = 0;
            while (!stopping) {
                if (!slots.tryAcquire(500, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                int free = 1 + slots.drainPermits();
                int asked = Math.min(free, MOST_AT_ONCE);
                if (stopping) {
                    slots.release(free);
                    break;
                }
                List<ClaimedTask> claimed;
                try {
                    claiming = client.claimAsync(types, asked, wait, name);
                    claimed = claiming.get();
                    failures = 0;
                } catch (CancellationException stoppedMeanwhile) {
                    slots.release(free);
                    break;
                } catch (ExecutionException failedClaim) {
                    slots.release(free);
                    if (!(failedClaim.getCause() instanceof TaskfenceException failed)
                            || !(failed instanceof ServiceUnavailableException || failed.status() == 429)) {
                        // A refused claim (key, types) is a configuration error: no retry mends it.
                        throw failedClaim.getCause() instanceof RuntimeException refused ? refused
                                : new IllegalStateException(failedClaim.getCause());
                    }
                    long pause = Math.min(LONGEST_BACKOFF.toMillis(), 500L << Math.min(failures++, 10));
                    pause = failed.retryAfter().map(Duration::toMillis)
                            .orElse(pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1));
                    LOG.log(Level.WARNING, "claiming failed ({0}); trying again in {1} ms", failed.getMessage(), pause);
                    sleepUnlessStopping(pause);
                    continue;
                }
                for (ClaimedTask task : claimed) {
                    Job job = new Job(task, client);
                    if (stopping) {
                        handBack(job); // claimed while stopping: another worker takes it
                        slots.release();
                        continue;
                    }
                    running.add(job);
                    handlers.execute(() -> runOne(job, heartbeats));
                }
                slots.release(free - claimed.size());
            }
        } finally {
            drain();
            handlers.shutdownNow();
            heartbeats.shutdownNow();
            stopped.countDown();
        }
    }

    private void runOne(Job job, ScheduledExecutorService heartbeats) {
        job.runOn(Thread.currentThread());
        long every = Math.max(50, job.task().leaseMillis() / 3);
        Heartbeat heartbeat = new Heartbeat(client, job, System.nanoTime());
        ScheduledFuture<?> beat = heartbeats.scheduleWithFixedDelay(heartbeat::sendUnlessSending, every, every,
                TimeUnit.MILLISECONDS);
        Future<?> timeout = timeOut(job, heartbeats);
        try {
            Object result;
            try {
                result = handler.handle(job);
            } catch (PermanentFailure permanent) {
                end(job, last -> client.fail(job.task(), permanent.getMessage(), false, null, last));
                return;
            } catch (Exception failure) {
                if (!job.superseded()) {
                    end(job, last -> client.fail(job.task(), failure.toString(), true, null, last));
                }
                return;
            }
            end(job, last -> completeOrFail(job, result, last));
        } finally {
            timeout.cancel(false);
            beat.cancel(false);
            running.remove(job);
            slots.release();
        }
    }

    /**
     * Stops the job once its attempt's time-out has passed since the claim came here (on this clock): by then the
     * service refuses the claim's writes and recovery may hand the task on, so the handler is interrupted and its end
     * not written, as for a superseded claim. The lease as this worker counts it thus never runs past the time-out,
     * whatever the heartbeats say.
     */
    private Future<?> timeOut(Job job, ScheduledExecutorService scheduler) {
        String timeout = job.task().timeout();
        if (timeout == null) {
            return CompletableFuture.completedFuture(null);
        }
        // The service writes it as <n>ms, or <n>s when whole seconds.
        long millis = timeout.endsWith("ms") ? Long.parseLong(timeout.substring(0, timeout.length() - 2))
                : Long.parseLong(timeout.substring(0, timeout.length() - 1)) * 1000;
        long left = job.claimedNanos() + TimeUnit.MILLISECONDS.toNanos(millis) - System.nanoTime();
        return scheduler.schedule(() -> {
            LOG.log(Level.INFO, "task {0}: its attempt timed out after {1}; stopping it", job.task().taskId(), timeout);
            job.supersede();
        }, left, TimeUnit.NANOSECONDS);
    }

    /**
     * The job's success; a result the service cannot store (not JSON, over 1 MiB) ends the task DEAD, as running it
     * again would most likely give the same (and repeat its side effects).
     */
    private Object completeOrFail(Job job, Object result, Object lastProgress) {
        if (lastProgress != null) {
            try {
                client.complete(job.task(), result, lastProgress);
                return null;
            } catch (ClaimSupersededException | ServiceUnavailableException again) {
                throw again;
            } catch (IllegalArgumentException | TaskfenceException refused) {
                if (refused instanceof TaskfenceException answered && answered.status() == 429) {
                    throw answered;
                }
                // The report or the result was refused: without the report, the answer says which.
                LOG.log(Level.WARNING, "task {0}: its end with its last progress report was refused ({1}); ending "
                        + "without the report", job.task().taskId(), refused.getMessage());
            }
        }
        try {
            client.complete(job.task(), result);
        } catch (IllegalArgumentException unwritable) {
            client.fail(job.task(), "the handler succeeded, but its result cannot be stored: "
                    + unwritable.getMessage(), false, null);
        } catch (ClaimSupersededException | ServiceUnavailableException again) {
            throw again;
        } catch (TaskfenceException refused) {
            if (refused.status() == 429) {
                throw refused;
            }
            client.fail(job.task(), "the handler succeeded, but its result cannot be stored: "
                    + refused.problem().path("detail").asText(refused.getMessage()), false, null);
        }
        return null;
    }

    /**
     * Writes the job's end, carrying its last progress report held back (if any), unless its claim was superseded;
     * tried again while the service cannot be reached, and without the report if the service refused the end with it.
     */
    private void end(Job job, Function<Object, ?> write) {
        Object lastProgress = job.ending();
        long pauseMillis = 200;
        while (!job.superseded()) {
            try {
                write.apply(lastProgress);
                return;
            } catch (ClaimSupersededException superseded) {
                job.supersede();
                LOG.log(Level.INFO, "task {0}: {1}; its outcome is dropped", job.task().taskId(),
                        superseded.problem().path("detail").asText());
            } catch (IllegalArgumentException unwritableProgress) { // only a report is checked here: a result is not
                LOG.log(Level.WARNING, "task {0}: its last progress report cannot be sent ({1})", job.task().taskId(),
                        unwritableProgress.getMessage());
                lastProgress = null;
            } catch (TaskfenceException failed) {
                if (lastProgress != null && !(failed instanceof ServiceUnavailableException) && failed.status() != 429) {
                    lastProgress = null; // the report may be what was refused: the end again, without it
                    continue;
                }
                if (!(failed instanceof ServiceUnavailableException) && failed.status() != 429) {
                    LOG.log(Level.ERROR, "task {0}: the service refused its end ({1}); its lease will run out",
                            job.task().taskId(), failed.getMessage());
                    return;
                }
                LOG.log(Level.WARNING, "task {0}: writing its end failed ({1}); trying again", job.task().taskId(),
                        failed.getMessage());
                try {
                    Thread.sleep(failed.retryAfter().map(Duration::toMillis).orElse(pauseMillis));
                } catch (InterruptedException interrupted) {
                    return; // superseded meanwhile
                }
                pauseMillis = Math.min(pauseMillis * 2, 5_000);
            }
        }
    }

    private void drain() throws InterruptedException {
        long end = System.nanoTime() + drainTimeout.toNanos();
        while (!running.isEmpty() && System.nanoTime() - end < 0) {
            Thread.sleep(50);
        }
        for (Job job : running) {
            job.supersede(); // its outcome is not written: the task goes back for another worker
            handBack(job);
        }
    }

    private void handBack(Job job) {
        try {
            client.release(job.task());
            LOG.log(Level.INFO, "task {0} handed back", job.task().taskId());
        } catch (TaskfenceException failed) {
            LOG.log(Level.WARNING, "task {0}: handing it back failed ({1}); it runs again once its lease has run out",
                    job.task().taskId(), failed.getMessage());
        }
    }

    private void sleepUnlessStopping(long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!stopping && System.nanoTime() - end < 0) {
            Thread.sleep(Math.min(100, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
        }
    }
}

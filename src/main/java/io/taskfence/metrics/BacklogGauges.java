package io.taskfence.metrics;

import java.time.Duration;
import java.util.Map;

import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.taskfence.queue.TaskQueue;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.followup.FollowUps;
import io.taskfence.types.TaskTypes;
import io.taskfence.types.TypeLimits;

/**
 * The gauges of the work waiting and under way, as the shared servers hold it (so every replica reports
 * the same numbers): {@code taskfence.tasks} per status, from one {@code group by status} count, and
 * {@code taskfence.queue.depth} and {@code taskfence.queue.pending}, from the stream, and {@code
 * taskfence.type.keys.at.limit} per type with {@code max-per-key}, {@code taskfence.type.keys.rate.limited} per type
 * with {@code rate-per-key}. Each is read
 * when scraped, at most every {@link #MAX_AGE}; a server that is down leaves the last values (and NaN
 * before the first).
 */
@Startup
@Singleton
final class BacklogGauges {

    static final Duration MAX_AGE = Duration.ofSeconds(5);

    /** The stream's entries (XLEN) and those read but not finished (XPENDING), read together. */
    private record Queue(long depth, long pending) {
    }

    private final CachedReading<Map<TaskStatus, Long>> tasks;
    private final CachedReading<Queue> queue;
    private final CachedReading<Map<String, Long>> keysAtLimit;
    private final CachedReading<Map<String, Long>> keysRateLimited;
    private final CachedReading<FollowUps.Backlog> followUps;

    BacklogGauges(MeterRegistry registry, TaskQueries queries, TaskQueue taskQueue, TaskTypes types, TypeLimits limits,
            FollowUps ends) {
        this.tasks = new CachedReading<>("the task counts", queries::countByStatus, MAX_AGE);
        this.queue = new CachedReading<>("the queue's length",
                () -> new Queue(taskQueue.depth(), taskQueue.pending()), MAX_AGE);
        this.keysAtLimit = new CachedReading<>("the concurrency groups at their limit", types::keysAtLimit, MAX_AGE);
        this.keysRateLimited = new CachedReading<>("the concurrency groups their rate holds back",
                types::keysRateLimited, MAX_AGE);
        this.followUps = new CachedReading<>("the follow-ups' backlog", ends::backlog, MAX_AGE);
        for (TaskStatus status : TaskStatus.values()) {
            Gauge.builder("taskfence.tasks", tasks, reading -> reading.get()
                    .map(counts -> (double) counts.getOrDefault(status, 0L)).orElse(Double.NaN))
                    .description("Tasks in each status, in the whole table")
                    .tag("status", status.name())
                    .strongReference(true)
                    .register(registry);
        }
        Gauge.builder("taskfence.queue.depth", queue, reading -> reading.get()
                .map(q -> (double) q.depth()).orElse(Double.NaN))
                .description("Messages in the task stream: pushed by dispatch and not yet done by a worker")
                .strongReference(true)
                .register(registry);
        Gauge.builder("taskfence.queue.pending", queue, reading -> reading.get()
                .map(q -> (double) q.pending()).orElse(Double.NaN))
                .description("Messages a worker of the group '" + TaskQueue.GROUP + "' has read and not finished")
                .strongReference(true)
                .register(registry);
        Gauge.builder("taskfence.follow.ups", followUps, reading -> reading.get()
                .map(backlog -> (double) backlog.rows()).orElse(Double.NaN))
                .description("Task ends whose follow-ups (dependents to release or cancel, callback tasks) are not done")
                .strongReference(true)
                .register(registry);
        Gauge.builder("taskfence.follow.ups.oldest", followUps, reading -> reading.get()
                .map(FollowUps.Backlog::oldestSeconds).orElse(Double.NaN))
                .description("How long ago the oldest task end whose follow-ups are not done happened")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
        limits.limited().values().stream().filter(limit -> limit.maxPerKey().isPresent()).forEach(limit ->
                Gauge.builder("taskfence.type.keys.at.limit", keysAtLimit, reading -> reading.get()
                        .map(counts -> (double) counts.getOrDefault(limit.type(), 0L)).orElse(Double.NaN))
                        .description("Concurrency groups of the type with max-per-key tasks ENQUEUED, PROCESSING or "
                                + "waiting to run again: their next tasks wait")
                        .tag("type", limit.type())
                        .strongReference(true)
                        .register(registry));
        limits.ratedPerKey().forEach(type ->
                Gauge.builder("taskfence.type.keys.rate.limited", keysRateLimited, reading -> reading.get()
                        .map(counts -> (double) counts.getOrDefault(type, 0L)).orElse(Double.NaN))
                        .description("Concurrency groups of the type with due tasks that its rate-per-key holds "
                                + "back: their starts in the window and ENQUEUED tasks reach it")
                        .tag("type", type)
                        .strongReference(true)
                        .register(registry));
    }
}

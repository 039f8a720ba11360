package io.taskfence.api.tasks;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.taskfence.lock.LockSettings;
import io.taskfence.signals.SignalChannel;
import io.taskfence.task.Task;
import io.taskfence.task.TasksEnded;
import io.taskfence.task.TasksProgressed;

/**
 * The requests waiting for a task to end, or to show newer progress ({@code GET /tasks/{id}?wait=}; DESIGN.md, "REST
 * API", "Waiting for a result"), woken on every replica: each end committed here is published on
 * {@code <key-prefix>:ended}, each progress write on {@code <key-prefix>:progressed} (the task ids, separated by
 * spaces; fire-and-forget), and every replica's subscriptions complete the waiters of those ids. A waiter registers
 * before it reads the task, so an end committed between its read and its wait still wakes it. A lost message costs
 * only latency: the request answers the task's state when its wait ends.
 */
@ApplicationScoped
class TaskWaits {

    private final SignalChannel ends;
    private final SignalChannel progress;
    private final ConcurrentHashMap<UUID, Set<Waiter>> byTask = new ConcurrentHashMap<>();
    private ScheduledExecutorService resubscriber;

    /** One waiting request: the task it waits for, whether progress wakes it too, what completes when it may answer. */
    private record Waiter(UUID taskId, boolean onProgress, CompletableFuture<Void> woken) {
    }

    TaskWaits(RedisDataSource redis, LockSettings settings) {
        this.ends = new SignalChannel(redis, settings.keyPrefix() + ":ended");
        this.progress = new SignalChannel(redis, settings.keyPrefix() + ":progressed");
    }

    void start(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent started) {
        resubscriber = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("task-waits").daemon().factory());
        // A (re)made subscription may have missed messages: every waiter reads its task again.
        ends.listen(message -> wake(message, false), () -> wakeAll(false), resubscriber);
        progress.listen(message -> wake(message, true), () -> wakeAll(true), resubscriber);
    }

    /** Tasks ended here (committed): tell every replica's waiters. */
    void onEnded(@Observes TasksEnded ended) {
        ends.publish(idsText(ended.taskIds()));
    }

    /** Tasks' progress written here (committed): tell every replica's waiters that asked for progress. */
    void onProgressed(@Observes TasksProgressed progressed) {
        progress.publish(idsText(progressed.taskIds()));
    }

    /**
     * The task as {@code read} answers it once it has ended (SUCCEEDED, DEAD or CANCELLED), or shows progress written
     * after {@code progressAfter} (null: progress does not count), or {@code wait} has passed, whichever comes first;
     * no thread waits meanwhile. {@code release} runs when it is answered (or the request is given up).
     */
    Uni<Task> answer(UUID taskId, Supplier<Task> read, Duration wait, Instant progressAfter, Runnable release) {
        // Registered before the read: an end committed between the read and the wait still wakes it.
        Waiter waiter = register(taskId, progressAfter != null);
        Task now;
        try {
            now = read.get();
        } catch (RuntimeException e) {
            forget(waiter);
            release.run();
            throw e;
        }
        if (now.status().ended() || progressAfter != null && now.progressAt() != null
                && now.progressAt().isAfter(progressAfter)) {
            forget(waiter);
            release.run();
            return Uni.createFrom().item(now);
        }
        return Uni.createFrom().completionStage(waiter.woken().completeOnTimeout(null, wait.toMillis(),
                        TimeUnit.MILLISECONDS))
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .map(woken -> {
                    forget(waiter);
                    return read.get();
                })
                .onCancellation().invoke(() -> forget(waiter))
                .onTermination().invoke(release);
    }

    private Waiter register(UUID taskId, boolean onProgress) {
        Waiter waiter = new Waiter(taskId, onProgress, new CompletableFuture<>());
        // Added inside compute: a forget emptying and removing the task's set cannot strand this waiter in it.
        byTask.compute(taskId, (id, waiters) -> {
            Set<Waiter> all = waiters == null ? ConcurrentHashMap.newKeySet() : waiters;
            all.add(waiter);
            return all;
        });
        return waiter;
    }

    private void forget(Waiter waiter) {
        byTask.computeIfPresent(waiter.taskId(), (id, waiters) -> {
            waiters.remove(waiter);
            return waiters.isEmpty() ? null : waiters;
        });
    }

    private static String idsText(Iterable<UUID> taskIds) {
        StringJoiner ids = new StringJoiner(" ");
        taskIds.forEach(id -> ids.add(id.toString()));
        return ids.toString();
    }

    /** Wakes the waiters of the ids in {@code message}; for progress, only those that asked for it. */
    private void wake(String message, boolean progressed) {
        Arrays.stream(message.split(" ")).forEach(text -> {
            UUID id;
            try {
                id = UUID.fromString(text);
            } catch (IllegalArgumentException notOurs) {
                return;
            }
            Set<Waiter> waiters = byTask.get(id);
            if (waiters != null) {
                waiters.stream().filter(waiter -> !progressed || waiter.onProgress())
                        .forEach(waiter -> waiter.woken().complete(null));
            }
        });
    }

    /** Wakes every waiter; for a progress subscription made again, only those that asked for progress. */
    private void wakeAll(boolean progressOnly) {
        byTask.values().forEach(waiters -> waiters.stream().filter(waiter -> !progressOnly || waiter.onProgress())
                .forEach(waiter -> waiter.woken().complete(null)));
    }

    void stop(@Observes ShutdownEvent stopped) {
        ends.close();
        progress.close();
        wakeAll(false);
        if (resubscriber != null) {
            resubscriber.shutdownNow();
        }
    }
}

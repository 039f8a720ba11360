package io.taskfence.api.tasks;

import java.util.Arrays;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.lock.LockSettings;
import io.taskfence.signals.SignalChannel;
import io.taskfence.task.TasksEnded;

/**
 * The requests waiting for a task to end ({@code GET /tasks/{id}?wait=}; DESIGN.md, "REST API", "Waiting for a
 * result"), woken on every replica: each end committed here is published on {@code <key-prefix>:ended} (the task
 * ids, separated by spaces; fire-and-forget), and every replica's subscription completes the waiters of those ids.
 * A waiter registers before it reads the task, so an end committed between its read and its wait still wakes it. A
 * lost message costs only latency: the request answers the task's state when its wait ends.
 */
@ApplicationScoped
class TaskEndWaits {

    private final SignalChannel channel;
    private final ConcurrentHashMap<UUID, Set<Waiter>> byTask = new ConcurrentHashMap<>();
    private ScheduledExecutorService resubscriber;

    /** One waiting request: the task it waits for, and what completes when the task may have ended. */
    record Waiter(UUID taskId, CompletableFuture<Void> woken) {
    }

    TaskEndWaits(RedisDataSource redis, LockSettings settings) {
        this.channel = new SignalChannel(redis, settings.keyPrefix() + ":ended");
    }

    void start(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent started) {
        resubscriber = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("task-end-waits").daemon().factory());
        // A (re)made subscription may have missed ends: every waiter reads its task again.
        channel.listen(this::ended, this::wakeAll, resubscriber);
    }

    /** Tasks ended here (committed): tell every replica's waiters. */
    void onEnded(@Observes TasksEnded ended) {
        StringJoiner ids = new StringJoiner(" ");
        ended.taskIds().forEach(id -> ids.add(id.toString()));
        channel.publish(ids.toString());
    }

    /** Registers a waiter for {@code taskId}; {@link #forget} it once answered. */
    Waiter waitFor(UUID taskId) {
        Waiter waiter = new Waiter(taskId, new CompletableFuture<>());
        // Added inside compute: a forget emptying and removing the task's set cannot strand this waiter in it.
        byTask.compute(taskId, (id, waiters) -> {
            Set<Waiter> all = waiters == null ? ConcurrentHashMap.newKeySet() : waiters;
            all.add(waiter);
            return all;
        });
        return waiter;
    }

    void forget(Waiter waiter) {
        byTask.computeIfPresent(waiter.taskId(), (id, waiters) -> {
            waiters.remove(waiter);
            return waiters.isEmpty() ? null : waiters;
        });
    }

    private void ended(String message) {
        Arrays.stream(message.split(" ")).forEach(text -> {
            UUID id;
            try {
                id = UUID.fromString(text);
            } catch (IllegalArgumentException notOurs) {
                return;
            }
            Set<Waiter> waiters = byTask.get(id);
            if (waiters != null) {
                waiters.forEach(waiter -> waiter.woken().complete(null));
            }
        });
    }

    private void wakeAll() {
        byTask.values().forEach(waiters -> waiters.forEach(waiter -> waiter.woken().complete(null)));
    }

    void stop(@Observes ShutdownEvent stopped) {
        channel.close();
        wakeAll();
        if (resubscriber != null) {
            resubscriber.shutdownNow();
        }
    }
}

package io.taskfence.worker;

import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.redis.datasource.RedisDataSource;
import io.taskfence.lock.LockSettings;
import io.taskfence.signals.SignalChannel;
import io.taskfence.task.TaskCancelled;

/**
 * Tells every replica at once that a task was cancelled, so that the one running it asks PostgreSQL now
 * instead of at its next heartbeat: a Redis pub/sub channel, {@code <key-prefix>:cancelled}, carrying task
 * ids. The message only makes a worker check sooner; the check (a heartbeat, refused for a cancelled task)
 * decides, so a message lost, late or forged changes nothing but the delay. The subscription lives on a
 * connection of its own and is made again, a second after it ends, for as long as the workers run.
 */
@ApplicationScoped
public class CancelSignals {

    private final SignalChannel channel;

    CancelSignals(RedisDataSource redis, LockSettings settings) {
        this.channel = new SignalChannel(redis, channel(settings.keyPrefix()));
    }

    static String channel(String keyPrefix) {
        return keyPrefix + ":cancelled";
    }

    /** Publishes that task {@code id} was cancelled; never fails nor waits: without it the heartbeat notices. */
    public void cancelled(UUID id) {
        channel.publish(id.toString());
    }

    /** A client cancelled a task: the replica running it, if any, stops it now, not at its next heartbeat. */
    void onCancelled(@Observes TaskCancelled event) {
        cancelled(event.taskId());
    }

    /**
     * Subscribes, from now until {@link #close}, handing each cancelled task's id to {@code onCancel} (on an
     * event loop: it must not block). {@code resubscriber} schedules the next subscription after one ended.
     */
    void listen(Consumer<UUID> onCancel, ScheduledExecutorService resubscriber) {
        channel.listen(message -> {
            UUID id;
            try {
                id = UUID.fromString(message);
            } catch (IllegalArgumentException e) {
                return; // not ours to act on
            }
            onCancel.accept(id);
        }, () -> { }, resubscriber);
    }

    /** Stops listening; a subscription being made is closed when it arrives. */
    void close() {
        channel.close();
    }
}

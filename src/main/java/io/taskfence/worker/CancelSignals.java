package io.taskfence.worker;

import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.RedisDataSource;
import io.taskfence.lock.LockSettings;
import io.taskfence.task.TaskCancelled;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * Tells every replica at once that a task was cancelled, so that the one running it asks PostgreSQL now
 * instead of at its next heartbeat: a Redis pub/sub channel, {@code <key-prefix>:cancelled}, carrying task
 * ids. The message only makes a worker check sooner; the check (a heartbeat, refused for a cancelled task)
 * decides, so a message lost, late or forged changes nothing but the delay. The subscription lives on a
 * connection of its own and is made again, a second after it ends, for as long as the workers run.
 */
@ApplicationScoped
public class CancelSignals {

    private static final Logger LOG = Logger.getLogger(CancelSignals.class);
    private static final long RESUBSCRIBE_PAUSE_MILLIS = 1_000;

    private final Redis redis;
    private final String channel;
    // Guarded by this.
    private RedisConnection connection;
    private Consumer<UUID> listener;
    private ScheduledExecutorService timer;
    private boolean closed;

    CancelSignals(RedisDataSource redis, LockSettings settings) {
        this.redis = redis.getReactive().getRedis();
        this.channel = channel(settings.keyPrefix());
    }

    static String channel(String keyPrefix) {
        return keyPrefix + ":cancelled";
    }

    /** Publishes that task {@code id} was cancelled; never fails nor waits: without it the heartbeat notices. */
    public void cancelled(UUID id) {
        redis.send(Request.cmd(Command.PUBLISH).arg(channel).arg(id.toString())).subscribe().with(
                published -> { }, failure -> LOG.debugf("publishing the cancel of %s failed: %s", id, failure));
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
        synchronized (this) {
            listener = onCancel;
            timer = resubscriber;
        }
        subscribe();
    }

    private void subscribe() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        redis.connect().subscribe().with(this::subscribeOn, failure -> ended(null, failure));
    }

    private void subscribeOn(RedisConnection opened) {
        synchronized (this) {
            if (closed) {
                opened.close().subscribe().with(done -> { }, failure -> { });
                return;
            }
            connection = opened;
        }
        opened.handler(this::onMessage);
        opened.exceptionHandler(failure -> ended(opened, failure));
        opened.endHandler(() -> ended(opened, null));
        opened.send(Request.cmd(Command.SUBSCRIBE).arg(channel)).subscribe().with(reply -> { },
                failure -> ended(opened, failure));
    }

    private void onMessage(Response message) {
        if (message.size() < 3 || !"message".equals(message.get(0).toString())) {
            return;
        }
        UUID id;
        try {
            id = UUID.fromString(message.get(2).toString());
        } catch (IllegalArgumentException e) {
            return; // not ours to act on
        }
        Consumer<UUID> onCancel;
        synchronized (this) {
            onCancel = listener;
        }
        onCancel.accept(id);
    }

    /** The subscription ended or failed: drop its connection and subscribe again after a pause. */
    private void ended(RedisConnection which, Throwable failure) {
        synchronized (this) {
            if (which != null && which != connection) {
                return; // an older connection's late report
            }
            connection = null;
            if (closed) {
                return;
            }
            timer.schedule(this::subscribe, RESUBSCRIBE_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
        }
        if (which != null) {
            LOG.infof("subscription to %s ended (%s); subscribing again every %d ms until it is back", channel,
                    failure == null ? "connection closed" : failure.toString(), RESUBSCRIBE_PAUSE_MILLIS);
            leave(which);
        } else {
            // Redis unreachable: one line a second would flood the log; the ending above said it already.
            LOG.debugf("subscribing to %s failed: %s", channel, failure);
        }
    }

    /** Leaves pub/sub mode before closing, so that the pool never hands out a subscribed connection. */
    private void leave(RedisConnection subscribed) {
        subscribed.send(Request.cmd(Command.UNSUBSCRIBE).arg(channel))
                .onItemOrFailure().transformToUni((reply, failure) -> subscribed.close())
                .subscribe().with(done -> { }, failure -> { });
    }

    /** Stops listening; a subscription being made is closed when it arrives. */
    void close() {
        RedisConnection open;
        synchronized (this) {
            closed = true;
            open = connection;
            connection = null;
        }
        if (open != null) {
            leave(open);
        }
    }
}

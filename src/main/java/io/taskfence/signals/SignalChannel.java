package io.taskfence.signals;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * One Redis pub/sub channel: published to without waiting, and listened to on a connection of its own from
 * {@link #listen} to {@link #close}. A subscription that ends is made again a second later, for as long as it is
 * listened to; each time one is confirmed, {@code onSubscribed} runs, so that a listener can look again for what it
 * may have missed meanwhile.
 */
public final class SignalChannel implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SignalChannel.class);
    private static final long RESUBSCRIBE_PAUSE_MILLIS = 1_000;

    private final Redis redis;
    private final String channel;
    // Guarded by this.
    private RedisConnection connection;
    private Consumer<String> listener;
    private Runnable subscribed;
    private ScheduledExecutorService timer;
    private boolean closed;

    public SignalChannel(RedisDataSource redis, String channel) {
        this.redis = redis.getReactive().getRedis();
        this.channel = channel;
    }

    /** Publishes {@code message}; never fails nor waits: a message is only ever a hint. */
    public void publish(String message) {
        redis.send(Request.cmd(Command.PUBLISH).arg(channel).arg(message)).subscribe().with(
                published -> { }, failure -> LOG.debugf("publishing %s on %s failed: %s", message, channel, failure));
    }

    /**
     * Subscribes, from now until {@link #close}, handing each message to {@code onMessage} and calling
     * {@code onSubscribed} whenever a subscription is confirmed (both on an event loop: they must not block).
     * {@code resubscriber} schedules the next subscription after one ended.
     */
    public void listen(Consumer<String> onMessage, Runnable onSubscribed, ScheduledExecutorService resubscriber) {
        synchronized (this) {
            listener = onMessage;
            subscribed = onSubscribed;
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
        opened.send(Request.cmd(Command.SUBSCRIBE).arg(channel)).subscribe().with(reply -> {
            Runnable onSubscribed;
            synchronized (this) {
                onSubscribed = subscribed;
            }
            onSubscribed.run();
        }, failure -> ended(opened, failure));
    }

    private void onMessage(Response message) {
        if (message.size() < 3 || !"message".equals(message.get(0).toString())) {
            return;
        }
        Consumer<String> onMessage;
        synchronized (this) {
            onMessage = listener;
        }
        onMessage.accept(message.get(2).toString());
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
    @Override
    public void close() {
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

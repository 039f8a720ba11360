package io.taskfence.lock;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;
import io.vertx.mutiny.redis.client.Response;

/**
 * Wakes local waiters when any replica releases a lock: one pub/sub subscription per replica, made in
 * the background on a connection of its own, and a generation counter per lock name.
 *
 * <p>A waiter takes a {@link Mark} <em>before</em> it tries to acquire, and sleeps only while neither
 * its lock's generation nor the subscription epoch has moved since. The epoch moves whenever a
 * subscription starts or ends, so a release that happened while nobody was subscribed makes every
 * waiter look again instead of sleeping through it. Without a subscription (Redis unreachable) waiters
 * still wake when the holder's lease ends: the signal shortens waits, it is never needed for progress.
 */
final class ReleaseSignals implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ReleaseSignals.class);
    /** A failed subscription is tried again at most this often, so that a broken Redis is not hammered. */
    private static final long RESUBSCRIBE_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** What a waiter saw before its attempt. */
    record Mark(long generation, long epoch) {
    }

    private final Redis redis;
    private final String channel;
    // All guarded by this.
    private final Map<String, Long> generations = new HashMap<>();
    private long epoch;
    /** The subscription being made or live; callbacks of any other one are ignored. */
    private Subscription current;
    private long nextAttemptNanos = System.nanoTime();
    private boolean closed;

    /** One attempt at subscribing, on a connection of its own. */
    private static final class Subscription {
        private RedisConnection connection;
        private boolean confirmed;
    }

    ReleaseSignals(Redis redis, String channel) {
        this.redis = redis;
        this.channel = channel;
    }

    synchronized Mark mark(String name) {
        return new Mark(generations.getOrDefault(name, 0L), epoch);
    }

    /** Starts subscribing in the background, unless subscribed, already subscribing, or paused after a failure. */
    void subscribeIfNeeded() {
        Subscription attempt = new Subscription();
        synchronized (this) {
            if (closed || current != null || System.nanoTime() - nextAttemptNanos < 0) {
                return;
            }
            current = attempt;
        }
        redis.connect().subscribe().with(connection -> subscribe(attempt, connection), failure -> ended(attempt, failure));
    }

    /**
     * Sends SUBSCRIBE with the handlers in place first. The confirmation may come as the command's reply
     * or through the handler, depending on the protocol: either one counts.
     */
    private void subscribe(Subscription attempt, RedisConnection connection) {
        synchronized (this) {
            if (current != attempt) {
                connection.close().subscribe().with(done -> { }, failure -> { });
                return;
            }
            attempt.connection = connection;
        }
        connection.handler(message -> onMessage(attempt, message));
        connection.exceptionHandler(failure -> ended(attempt, failure));
        connection.endHandler(() -> ended(attempt, null));
        connection.send(Request.cmd(Command.SUBSCRIBE).arg(channel)).subscribe()
                .with(reply -> confirmed(attempt), failure -> ended(attempt, failure));
    }

    /** Sleeps until {@code name} is released or the subscription changes after {@code mark}, or the time is up. */
    synchronized void awaitRelease(String name, Mark mark, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        long left = timeoutNanos;
        while (left > 0 && epoch == mark.epoch() && generations.getOrDefault(name, 0L) == mark.generation()) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
            left = deadline - System.nanoTime();
        }
    }

    private void onMessage(Subscription attempt, Response message) {
        if (message.size() < 3) {
            return;
        }
        String kind = message.get(0).toString();
        if ("message".equals(kind)) {
            released(message.get(2).toString());
        } else if ("subscribe".equals(kind)) {
            confirmed(attempt);
        }
    }

    private synchronized void confirmed(Subscription attempt) {
        if (current == attempt && !attempt.confirmed) {
            attempt.confirmed = true;
            moveEpoch(); // releases before the subscription went unseen: every waiter looks again
        }
    }

    /**
     * The subscription ended or failed (connection dropped, Redis restarted): give up on it, and let the
     * next waiter subscribe again, after a pause if it failed.
     */
    private void ended(Subscription attempt, Throwable failure) {
        synchronized (this) {
            if (current != attempt) {
                return;
            }
            current = null;
            if (failure != null) {
                nextAttemptNanos = System.nanoTime() + RESUBSCRIBE_PAUSE_NANOS;
            }
            moveEpoch();
        }
        LOG.infof("subscription to %s ended (%s); the next waiter subscribes again", channel,
                failure == null ? "connection closed" : failure.toString());
        close(attempt).subscribe().with(done -> { }, ignored -> { });
    }

    private synchronized void released(String name) {
        generations.merge(name, 1L, Long::sum);
        notifyAll();
    }

    private void moveEpoch() {
        epoch++;
        notifyAll();
    }

    /** Leaves pub/sub mode and closes the connection, so that the pool discards it. */
    private Uni<Void> close(Subscription attempt) {
        RedisConnection connection;
        synchronized (this) {
            connection = attempt.connection;
        }
        if (connection == null) {
            return Uni.createFrom().voidItem();
        }
        return connection.send(Request.cmd(Command.UNSUBSCRIBE).arg(channel))
                .onItemOrFailure().transformToUni((reply, failure) -> connection.close())
                .onFailure().recoverWithNull();
    }

    @Override
    public void close() {
        Subscription toClose;
        synchronized (this) {
            closed = true;
            toClose = current;
            current = null;
        }
        if (toClose != null) {
            try {
                close(toClose).await().atMost(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.debugf(e, "unsubscribe from %s failed at shutdown", channel);
            }
        }
    }
}

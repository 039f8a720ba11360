package io.taskfence.lock;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.pubsub.ReactivePubSubCommands.ReactiveRedisSubscriber;

/**
 * Wakes local waiters when any replica releases a lock: one pub/sub subscription per replica, made in
 * the background, and a generation counter per lock name.
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

    private final ReactiveRedisDataSource redis;
    private final String channel;
    private final Map<String, Long> generations = new HashMap<>();
    private long epoch;
    private ReactiveRedisSubscriber subscriber;
    /** The subscription being made or live; the callbacks of any other one are ignored. */
    private Object current;
    private long nextAttemptNanos = System.nanoTime();
    private boolean closed;

    ReleaseSignals(ReactiveRedisDataSource redis, String channel) {
        this.redis = redis;
        this.channel = channel;
    }

    synchronized Mark mark(String name) {
        return new Mark(generations.getOrDefault(name, 0L), epoch);
    }

    /** Starts subscribing in the background, unless subscribed, already subscribing, or paused after a failure. */
    void subscribeIfNeeded() {
        Object attempt = new Object();
        synchronized (this) {
            if (closed || current != null || System.nanoTime() - nextAttemptNanos < 0) {
                return;
            }
            current = attempt;
        }
        redis.pubsub(String.class)
                .subscribe(channel, this::released, () -> ended(attempt), failure -> failed(attempt, failure))
                .subscribe().with(made -> installed(attempt, made), failure -> failed(attempt, failure));
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

    private void installed(Object attempt, ReactiveRedisSubscriber made) {
        synchronized (this) {
            if (current == attempt && !closed) {
                subscriber = made;
                moveEpoch();
                return;
            }
        }
        made.unsubscribe().subscribe().with(done -> { }, failure -> LOG.debug("unsubscribe failed", failure));
    }

    /** The subscription is gone (connection dropped, Redis restarted): the next waiter subscribes again. */
    private synchronized void ended(Object attempt) {
        if (current == attempt) {
            current = null;
            subscriber = null;
            moveEpoch();
        }
    }

    private void failed(Object attempt, Throwable failure) {
        LOG.debugf(failure, "subscription to %s failed; waiters fall back to the holders' lease ends", channel);
        synchronized (this) {
            if (current == attempt) {
                nextAttemptNanos = System.nanoTime() + RESUBSCRIBE_PAUSE_NANOS;
            }
        }
        ended(attempt);
    }

    private synchronized void released(String name) {
        generations.merge(name, 1L, Long::sum);
        notifyAll();
    }

    private void moveEpoch() {
        epoch++;
        notifyAll();
    }

    @Override
    public void close() {
        ReactiveRedisSubscriber toClose;
        synchronized (this) {
            closed = true;
            toClose = subscriber;
            subscriber = null;
            current = null;
        }
        if (toClose != null) {
            try {
                toClose.unsubscribe().await().atMost(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.debugf(e, "unsubscribe from %s failed at shutdown", channel);
            }
        }
    }
}

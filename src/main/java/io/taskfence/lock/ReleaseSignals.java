package io.taskfence.lock;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.pubsub.PubSubCommands.RedisSubscriber;

/**
 * Wakes local waiters when any replica releases a lock: one pub/sub subscription per replica, a
 * generation counter per lock name. A waiter reads the generation <em>before</em> it tries to
 * acquire, so a release that lands between its refused attempt and its wait is not missed.
 *
 * <p>Without a subscription (Redis unreachable when it was first needed) waiters still wake when
 * the holder's lease ends: the signal shortens waits, it is never needed for progress.
 */
final class ReleaseSignals implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ReleaseSignals.class);

    private final RedisDataSource redis;
    private final String channel;
    private final Map<String, Long> generations = new HashMap<>();
    private final Object subscribing = new Object();
    private RedisSubscriber subscriber;
    /** Identifies the live subscription, so that the end of an older one cannot clear it. */
    private Object current;
    private boolean closed;

    ReleaseSignals(RedisDataSource redis, String channel) {
        this.redis = redis;
        this.channel = channel;
    }

    synchronized boolean subscribed() {
        return subscriber != null;
    }

    /**
     * Subscribes if not yet subscribed; retried on the next wait if Redis did not answer. Callers take
     * turns, so that a replica never holds more than one subscription (each holds a pooled connection).
     *
     * @return true if this call made the subscription: releases before it were not seen
     */
    boolean subscribe() {
        synchronized (subscribing) {
            if (subscribed() || isClosed()) {
                return false;
            }
            Object attempt = new Object();
            synchronized (this) {
                current = attempt;
            }
            RedisSubscriber fresh;
            try {
                fresh = redis.pubsub(String.class).subscribe(channel, this::released,
                        () -> ended(attempt), failure -> failed(attempt, failure));
            } catch (RuntimeException e) {
                ended(attempt);
                LOG.debugf(e, "cannot subscribe to %s yet; waiters fall back to the holders' lease ends", channel);
                return false;
            }
            synchronized (this) {
                if (current != attempt) {
                    return false; // it ended while being set up: its connection is gone already
                }
                subscriber = fresh;
            }
            return true;
        }
    }

    synchronized long generation(String name) {
        return generations.getOrDefault(name, 0L);
    }

    /** Waits until {@code name} is released after generation {@code seen}, or the time is up. */
    synchronized void awaitRelease(String name, long seen, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        long left = timeoutNanos;
        while (generations.getOrDefault(name, 0L) == seen && left > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
            left = deadline - System.nanoTime();
        }
    }

    /** The subscription is gone (connection dropped, Redis restarted): the next wait subscribes again. */
    private synchronized void ended(Object attempt) {
        if (current == attempt) {
            subscriber = null;
            current = null;
        }
    }

    private void failed(Object attempt, Throwable failure) {
        LOG.debugf(failure, "subscription to %s failed; the next wait subscribes again", channel);
        ended(attempt);
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private synchronized void released(String name) {
        generations.merge(name, 1L, Long::sum);
        notifyAll();
    }

    @Override
    public void close() {
        RedisSubscriber toClose;
        synchronized (this) {
            closed = true;
            toClose = subscriber;
            subscriber = null;
        }
        if (toClose != null) {
            try {
                toClose.unsubscribe();
            } catch (RuntimeException e) {
                LOG.debugf(e, "unsubscribe from %s failed at shutdown", channel);
            }
        }
    }
}

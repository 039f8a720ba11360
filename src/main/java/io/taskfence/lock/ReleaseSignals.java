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
    private RedisSubscriber subscriber;
    private boolean closed;

    ReleaseSignals(RedisDataSource redis, String channel) {
        this.redis = redis;
        this.channel = channel;
    }

    synchronized boolean subscribed() {
        return subscriber != null;
    }

    /**
     * Subscribes if not yet subscribed; retried on the next wait if Redis did not answer.
     *
     * @return true if this call made the subscription: releases before it were not seen
     */
    boolean subscribe() {
        synchronized (this) {
            if (subscriber != null || closed) {
                return false;
            }
        }
        RedisSubscriber fresh;
        try {
            fresh = redis.pubsub(String.class).subscribe(channel, this::released);
        } catch (RuntimeException e) {
            LOG.debugf(e, "cannot subscribe to %s yet; waiters fall back to the holders' lease ends", channel);
            return false;
        }
        boolean keep;
        synchronized (this) {
            keep = subscriber == null && !closed;
            if (keep) {
                subscriber = fresh;
            }
        }
        if (!keep) {
            fresh.unsubscribe();
        }
        return keep;
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

package io.taskfence.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.taskfence.logging.LogContext;

/**
 * Named locks in Redis that hand out fencing tokens (DESIGN.md, "Lock protocol (Redis)"). Every lock has a lease, so a
 * holder that dies blocks others only until its lease ends; acquisition, renewal and release are
 * each one atomic script; a holder can never renew or delete a lock that another holder acquired.
 */
@ApplicationScoped
public class FencedLocks {

    private static final Logger LOG = Logger.getLogger(FencedLocks.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    private final LockSettings settings;
    private final LockScripts scripts;
    private final ReleaseSignals releases;
    private final ScheduledExecutorService watchdogTimer;
    private final RedisDataSource redis;
    private final MeterRegistry metrics;
    /** Names this replica has asked for: the ones whose holders {@link #holders()} reports. */
    private final Set<String> names = new ConcurrentSkipListSet<>();

    /** {@code metrics} counts acquisitions, refusals and losses per lock ({@code taskfence_lock_*_total}). */
    @Inject
    public FencedLocks(RedisDataSource redis, LockSettings settings, MeterRegistry metrics) {
        this(redis, settings, metrics, Executors.newScheduledThreadPool(2,
                Thread.ofPlatform().name("lock-watchdog-", 0).daemon().factory()));
    }

    /** For a caller that schedules the watchdog's renewals itself. */
    FencedLocks(RedisDataSource redis, LockSettings settings, MeterRegistry metrics,
            ScheduledExecutorService watchdogTimer) {
        this.settings = settings;
        this.redis = redis;
        this.metrics = metrics;
        this.scripts = new LockScripts(redis);
        this.releases = new ReleaseSignals(redis.getReactive().getRedis(), LockKeys.releaseChannel(settings.keyPrefix()));
        this.watchdogTimer = watchdogTimer;
    }

    /**
     * Acquires the lock {@code name}, waiting at most {@code waitAtMost} for its holder to release it or
     * for the holder's lease to end. A waiter sleeps until one of those happens; it never polls.
     *
     * @return the lease, or empty if the lock was still held when the wait ran out (or the thread was
     *         interrupted, whose flag is then set again)
     * @throws LockUnavailableException if Redis does not answer within the Redis client's timeout
     */
    public Optional<FencedLease> tryAcquire(String name, Duration lease, Duration waitAtMost) {
        requireValidName(name);
        Objects.requireNonNull(waitAtMost, "waitAtMost");
        if (lease == null || lease.toMillis() < 3) {
            throw new IllegalArgumentException("lease must be at least 3 ms, was " + lease);
        }
        if (names.add(name)) {
            // At zero from the first use: a counter first seen at 1 is an increase Prometheus misses.
            for (String counter : List.of("taskfence.lock.acquisitions", "taskfence.lock.refusals", "taskfence.lock.losses")) {
                metrics.counter(counter, "lock", name);
            }
        }
        LockKeys keys = LockKeys.of(settings.keyPrefix(), name);
        long deadline = System.nanoTime() + waitAtMost.toNanos();
        while (true) {
            ReleaseSignals.Mark mark = releases.mark(name);
            String owner = settings.replicaId() + "/" + UUID.randomUUID();
            long sentAt = System.nanoTime();
            LockScripts.AcquireReply reply = scripts.acquire(keys, owner, lease.toMillis());
            if (reply.acquired()) {
                count("taskfence.lock.acquisitions", name);
                return Optional.of(new FencedLease(keys, owner, reply.token(), lease, sentAt, scripts));
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                count("taskfence.lock.refusals", name);
                return Optional.empty();
            }
            releases.subscribeIfNeeded();
            try {
                releases.awaitRelease(name, mark, Math.min(left, holderLeftNanos(reply, left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    /** The holder's remaining lease; a key without expiry (written by someone else) never ends by itself. */
    private static long holderLeftNanos(LockScripts.AcquireReply refused, long otherwise) {
        return refused.holderTtlMillis() >= 0 ? TimeUnit.MILLISECONDS.toNanos(refused.holderTtlMillis()) : otherwise;
    }

    /**
     * Runs {@code job} on this thread if the lock {@code name} is free, with a watchdog renewing the lease
     * every third of it. If the lock is lost meanwhile, the job is interrupted and the outcome is
     * {@link RunOutcome#LEASE_LOST}; so it is if another holder has the lock when the job ends (the
     * replica was paused before its watchdog could tell). The lock is released when the job ends. While
     * the job runs, its thread's logging context (MDC) holds {@code lock} and {@code fenceToken}.
     *
     * @throws Exception what the job threw, unless its lease was lost
     */
    public RunOutcome runExclusively(String name, Duration lease, FencedJob job) throws Exception {
        return runExclusively(name, lease, Duration.ZERO, job);
    }

    /** As {@link #runExclusively(String, Duration, FencedJob)}, waiting at most {@code waitAtMost} for the lock. */
    public RunOutcome runExclusively(String name, Duration lease, Duration waitAtMost, FencedJob job) throws Exception {
        Optional<FencedLease> acquired = tryAcquire(name, lease, waitAtMost);
        if (acquired.isEmpty()) {
            LOG.debugf("lock %s is held elsewhere; skipping this run", name);
            return RunOutcome.SKIPPED;
        }
        FencedLease held = acquired.get();
        LeaseWatchdog watchdog = null;
        Exception failure = null;
        boolean heldToTheEnd;
        LogContext logContext = held.logContext(); // the job's log lines name lock and token
        try {
            watchdog = LeaseWatchdog.guardCurrentThread(held, watchdogTimer);
            job.run(held);
        } catch (Exception e) {
            failure = e;
        } finally {
            if (watchdog != null) {
                watchdog.close();
            }
            heldToTheEnd = held.released() || releaseQuietly(held);
            logContext.close();
        }
        if (watchdog != null && (watchdog.lost() || !heldToTheEnd)) {
            if (!watchdog.lost()) {
                // The job ended before the watchdog noticed (e.g. the whole replica was paused past the lease).
                LOG.warnf("lock %s (token %d) was lost: another holder had it, or its lease had run out, when the job "
                        + "ended%s", name, held.token(), failure == null ? "" : "; the job failed meanwhile: " + failure);
            } else if (failure != null) {
                LOG.debugf(failure, "job under lock %s stopped after its lease was lost", name);
            }
            count("taskfence.lock.losses", name);
            return RunOutcome.LEASE_LOST;
        }
        if (failure != null) {
            throw failure;
        }
        return RunOutcome.COMPLETED;
    }

    private void count(String counter, String lock) {
        metrics.counter(counter, "lock", lock).increment();
    }

    /**
     * Repairs the token counter of {@code name} after Redis lost it: raises it to {@code newestToken} (the
     * newest token PostgreSQL has accepted) if it is lower, so that the next holder's token is newer
     * than every token the fence has seen. Never lowers it.
     *
     * @return true if the counter was behind and was raised
     */
    public boolean raiseCounter(String name, long newestToken) {
        requireValidName(name);
        return scripts.raiseCounter(LockKeys.of(settings.keyPrefix(), name), newestToken);
    }

    /**
     * The current holders of the locks this replica has asked for (every replica runs the same jobs, so
     * any replica's answer covers them all). Locks nobody holds are left out.
     *
     * @throws LockUnavailableException if Redis does not answer
     */
    public List<LockHolder> holders() {
        List<LockHolder> holders = new ArrayList<>();
        try {
            for (String name : names) {
                LockKeys keys = LockKeys.of(settings.keyPrefix(), name);
                String value = redis.value(String.class).get(keys.lock());
                long ttl = redis.execute("PTTL", keys.lock()).toLong(); // -2 once the lock is gone
                int colon = value == null ? -1 : value.lastIndexOf(':');
                if (colon > 0 && ttl > 0) {
                    holders.add(new LockHolder(name, value.substring(0, colon),
                            Long.parseLong(value.substring(colon + 1)), ttl));
                }
            }
        } catch (RuntimeException e) {
            throw new LockUnavailableException("Redis did not report the lock holders: " + e.getMessage(), e);
        }
        return holders;
    }

    /** Releases the lease; false if the lock was no longer this lease's, true if released (or unknown). */
    /**
     * True if the lease was released, or held to the job's end. When Redis does not answer, the lease's end by
     * this replica's clock, as it is once the release has failed, decides: a replica woken from a pause past
     * its lease (SIGSTOP) often finds Redis slow to answer, and another holder may have the lock by then.
     */
    private static boolean releaseQuietly(FencedLease lease) {
        try {
            return lease.release();
        } catch (LockUnavailableException e) {
            boolean ranOut = lease.endPassed();
            LOG.warnf("could not release lock %s (token %d); it ends with its lease%s: %s", lease.name(),
                    lease.token(), ranOut ? ", which has run out: another holder may have it" : "", e.getMessage());
            return !ranOut;
        }
    }

    private static void requireValidName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("lock name must match " + NAME.pattern() + ", was " + name);
        }
    }

    @PreDestroy
    void close() {
        watchdogTimer.shutdownNow();
        releases.close();
    }
}

package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;

/** Many holders racing for one lock: never two inside at once, tokens rising in the order they got in. */
@QuarkusTest
@TestServers
class MutualExclusionTest {

    private static final int THREADS = 16;
    private static final int ACQUISITIONS_PER_THREAD = 500;

    /** One critical-section visit, as seen from inside it. */
    record Visit(long token, long enteredNanos, long leftNanos) {
    }

    @Inject
    RedisDataSource redis;
    @Inject
    LockSettings settings;
    @Inject
    MeterRegistry metrics;

    @Test
    void sixteenThreadsNeverOverlapAndTokensRiseInAcquisitionOrder() throws Exception {
        String name = "mutex-" + UUID.randomUUID();
        long subscriptionsBefore = releaseSubscriptions();
        // Four "replicas", four threads each: separate lock clients with separate owners and subscriptions.
        List<FencedLocks> replicas = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            replicas.add(new FencedLocks(redis, new LockSettings(settings.keyPrefix(), "replica-" + i,
                    settings.defaultLease()), metrics));
        }
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Visit> visits = new ArrayList<>();

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                FencedLocks locks = replicas.get(t % replicas.size());
                threads.add(pool.submit(() -> {
                    for (int i = 0; i < ACQUISITIONS_PER_THREAD; i++) {
                        Optional<FencedLease> acquired = locks.tryAcquire(name, Duration.ofSeconds(30),
                                Duration.ofSeconds(120));
                        FencedLease lease = acquired.orElseThrow(() -> new AssertionError("wait ran out"));
                        long entered = System.nanoTime();
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        // Stay inside a little, so that an overlap would have a window to show in.
                        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000));
                        inside.decrementAndGet();
                        long left = System.nanoTime();
                        synchronized (visits) {
                            visits.add(new Visit(lease.token(), entered, left));
                        }
                        assertTrue(lease.release(), "the holder releases its own lock");
                    }
                    return null;
                }));
            }
            for (Future<?> thread : threads) {
                thread.get();
            }
            // Each subscription holds a pooled connection: many waiters of one replica must share one.
            assertEquals(subscriptionsBefore + replicas.size(), releaseSubscriptions(), "release subscriptions");
        } finally {
            pool.shutdownNow();
            replicas.forEach(FencedLocks::close);
        }

        assertEquals(subscriptionsBefore, releaseSubscriptions(), "subscriptions left after the replicas closed");
        assertEquals(0, overlaps.get(), "two holders were inside the critical section at once");
        assertEquals(THREADS * ACQUISITIONS_PER_THREAD, visits.size());
        List<Visit> byEntry = visits.stream().sorted(Comparator.comparingLong(Visit::enteredNanos)).toList();
        for (int i = 1; i < byEntry.size(); i++) {
            Visit before = byEntry.get(i - 1);
            Visit after = byEntry.get(i);
            assertTrue(before.leftNanos() <= after.enteredNanos(), "visits " + before + " and " + after + " overlap");
            assertTrue(before.token() < after.token(),
                    "token " + after.token() + " entered after token " + before.token());
        }
    }

    private long releaseSubscriptions() {
        String channel = LockKeys.releaseChannel(settings.keyPrefix());
        return redis.execute("PUBSUB", "NUMSUB", channel).get(1).toLong();
    }
}

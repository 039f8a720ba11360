package io.taskfence.bench;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import jakarta.inject.Inject;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.lock.FencedLease;
import io.taskfence.lock.FencedLocks;
import io.taskfence.testing.TestServers;

/**
 * Acquire + release pairs per second of the service's own {@link FencedLocks} (in this JVM, against the local
 * Redis) with 1, 8 and 64 threads, each on a lock of its own: the cost of the protocol (one acquire script,
 * one release script, a pooled connection each), not of contention. Redisson's {@code RLock} is measured the
 * same way in bench/ ({@code tryLock(0, 30 s)} + {@code unlock}, one lock per thread).
 * <p>
 * The token counters these locks leave behind ({@code <prefix>:fence:{bench-...}}) live under the run's key
 * prefix, which {@link io.taskfence.testing.RedisKeySpace} deletes when the run ends.
 */
@QuarkusTest
@TestServers
class LockPairsBench {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Not counted: the JIT compiles the path and the Redis pool opens its connections. As long as Redisson's. */
    private static final Duration WARM_UP = Duration.ofSeconds(2);

    @Inject
    FencedLocks locks;

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = { 1, 8, 64 })
    void acquireReleasePairsPerSecond(int threads) throws InterruptedException {
        String run = "bench-" + UUID.randomUUID();
        LongAdder pairs = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        Thread.Builder builder = Thread.ofPlatform().name("lock-pairs-", 0);
        List<Thread> holders = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            String name = run + "-" + i;
            holders.add(builder.start(() -> {
                try {
                    while (!stop.get()) {
                        FencedLease lease = locks.tryAcquire(name, LEASE, Duration.ZERO)
                                .orElseThrow(() -> new AssertionError(name + " was refused, yet nobody else takes it"));
                        if (!lease.release()) {
                            throw new AssertionError(name + " (token " + lease.token() + ") was not released");
                        }
                        pairs.increment();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        long counted;
        long elapsedNanos;
        try {
            Thread.sleep(WARM_UP);
            long before = pairs.sum();
            long start = System.nanoTime();
            Thread.sleep(BenchResults.runTime());
            counted = pairs.sum() - before;
            elapsedNanos = System.nanoTime() - start;
        } finally {
            stop.set(true);
            for (Thread holder : holders) {
                holder.join();
            }
        }
        if (!failures.isEmpty()) {
            AssertionError failed = new AssertionError(failures.size() + " of " + threads + " threads failed",
                    failures.peek());
            failures.stream().skip(1).forEach(failed::addSuppressed);
            throw failed;
        }
        if (counted == 0) {
            fail("no acquire + release pair completed in " + BenchResults.runTime());
        }
        BenchResults.record("lock.taskfence." + threads, counted / (elapsedNanos / 1e9));
    }
}

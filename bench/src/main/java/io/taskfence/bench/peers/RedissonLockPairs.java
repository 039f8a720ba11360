package io.taskfence.bench.peers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * How many acquire + release pairs Redisson's {@link RLock} does a second for T threads, each on a lock name of
 * its own: {@code tryLock(0, 30, SECONDS)} then {@code unlock()}, the shape of Taskfence's lock benchmark
 * (try to acquire without waiting, 30 s lease, release; one lock a thread), so no pair ever waits on another
 * and the figure is the cost of the round trips and the scripts, not of contention.
 */
final class RedissonLockPairs {

    /** Lets the JIT compile the lock path and Redisson settle in before counting; not part of the figure. */
    static final Duration WARM_UP = Duration.ofSeconds(2);
    static final long LEASE_SECONDS = 30;
    private static final Duration JOIN_LIMIT = Duration.ofSeconds(30);

    /**
     * @param threads threads, one lock each
     * @param pairs   pairs completed inside the counted window
     * @param refused {@code tryLock} calls that returned false; with one lock a thread there should be none
     * @param window  the counted time, as measured (≈ --seconds)
     */
    record Result(int threads, long pairs, long refused, Duration window) {

        double pairsPerSecond() {
            return pairs / (window.toNanos() / 1e9);
        }
    }

    private enum Phase { WARM_UP, COUNT, STOP }

    private final RedissonClient redisson;
    private final String keyPrefix;
    private final Duration window;

    RedissonLockPairs(RedissonClient redisson, String keyPrefix, Duration window) {
        this.redisson = redisson;
        this.keyPrefix = keyPrefix;
        this.window = window;
    }

    Result measure(int threads) throws InterruptedException {
        return new Run(threads).measure();
    }

    /** One measurement: its threads, the phase they read, their counts. */
    private final class Run {

        private final int threads;
        private final long[] pairs;
        private final long[] refused;
        private final CountDownLatch ready;
        private final CountDownLatch go = new CountDownLatch(1);
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private volatile Phase phase = Phase.WARM_UP;

        Run(int threads) {
            this.threads = threads;
            this.pairs = new long[threads];
            this.refused = new long[threads];
            this.ready = new CountDownLatch(threads);
        }

        Result measure() throws InterruptedException {
            List<Thread> workers = new ArrayList<>();
            try {
                for (int i = 0; i < threads; i++) {
                    int index = i;
                    workers.add(Thread.ofPlatform().name("redisson-lock-" + i).start(() -> work(index)));
                }
                ready.await();
                go.countDown();
                Thread.sleep(WARM_UP);
                failIfBroken();
                phase = Phase.COUNT;
                long start = System.nanoTime();
                Thread.sleep(window);
                phase = Phase.STOP;
                Duration counted = Duration.ofNanos(System.nanoTime() - start);
                join(workers);
                failIfBroken();
                long total = 0;
                long refusals = 0;
                for (int i = 0; i < threads; i++) {
                    total += pairs[i];
                    refusals += refused[i];
                }
                if (total == 0) {
                    throw new IllegalStateException("Redisson completed no lock pair with " + threads + " thread(s)");
                }
                return new Result(threads, total, refusals, counted);
            } finally {
                phase = Phase.STOP;
                go.countDown();
                join(workers);
            }
        }

        private void work(int index) {
            RLock lock;
            try {
                // created once: the loop measures locking, not building lock objects
                lock = redisson.getLock(keyPrefix + ":lock:" + index);
            } catch (RuntimeException e) {
                fail(e);
                return;
            } finally {
                ready.countDown();
            }
            try {
                go.await();
                long done = 0;
                long notAcquired = 0;
                while (phase != Phase.STOP) {
                    if (lock.tryLock(0, LEASE_SECONDS, TimeUnit.SECONDS)) {
                        lock.unlock();
                        // counted only when the whole pair completes inside the window
                        if (phase == Phase.COUNT) {
                            done++;
                        }
                    } else if (phase == Phase.COUNT) {
                        notAcquired++;
                    }
                }
                pairs[index] = done;
                refused[index] = notAcquired;
            } catch (Throwable e) {
                fail(e);
            }
        }

        /** The first failure is kept and stops every thread: a run with a broken thread measures nothing. */
        private void fail(Throwable e) {
            failure.compareAndSet(null, e);
            phase = Phase.STOP;
        }

        private void failIfBroken() {
            Throwable cause = failure.get();
            if (cause != null) {
                throw new IllegalStateException("a Redisson lock thread failed (" + threads + " threads): " + cause,
                        cause);
            }
        }

        private static void join(List<Thread> workers) throws InterruptedException {
            long deadline = System.nanoTime() + JOIN_LIMIT.toNanos();
            for (Thread worker : workers) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !worker.join(Duration.ofNanos(left))) {
                    throw new IllegalStateException(worker.getName() + " did not stop within " + JOIN_LIMIT);
                }
            }
        }
    }
}

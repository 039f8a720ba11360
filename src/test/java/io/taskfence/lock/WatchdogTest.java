package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.redis.client.RedisClientName;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.UnresponsiveRedis;

/** A job longer than its lease keeps the lock; a holder that stops renewing loses it and is stopped. */
@QuarkusTest
@TestServers
class WatchdogTest {

    private static final Duration LEASE = Duration.ofMillis(1_500);

    @Inject
    FencedLocks locks;
    @Inject
    RedisDataSource redis;
    @Inject
    @RedisClientName(UnresponsiveRedis.SILENT)
    RedisDataSource silent;
    @Inject
    LockSettings settings;
    @Inject
    MeterRegistry metrics;

    @Test
    void aJobFourTimesLongerThanItsLeaseKeepsTheLockThroughout() throws Exception {
        String name = "long-" + UUID.randomUUID();
        AtomicReference<FencedLease> seen = new AtomicReference<>();
        AtomicBoolean everStolen = new AtomicBoolean();

        RunOutcome outcome = locks.runExclusively(name, LEASE, lease -> {
            seen.set(lease);
            long end = System.nanoTime() + LEASE.multipliedBy(4).toNanos();
            while (System.nanoTime() < end) {
                if (locks.tryAcquire(name, LEASE, Duration.ZERO).isPresent()) {
                    everStolen.set(true);
                }
                assertTrue(lease.isValid(), "the lease went invalid while the watchdog renewed it");
                Thread.sleep(50);
            }
        });

        assertEquals(RunOutcome.COMPLETED, outcome);
        assertFalse(everStolen.get(), "another holder got the lock while the long job ran");
        assertFalse(seen.get().isValid(), "a released lease is no longer valid");
        assertTrue(locks.tryAcquire(name, LEASE, Duration.ZERO).isPresent(), "the lock is free after the job");
    }

    @Test
    void aPausedHolderLosesTheLockIsToldSoAndIsInterrupted() throws Exception {
        String name = "paused-" + UUID.randomUUID();
        // The paused replica: its watchdog runs on one thread that the test can stall, as a GC pause would.
        ScheduledExecutorService pausable = Executors.newSingleThreadScheduledExecutor();
        FencedLocks pausedReplica = new FencedLocks(redis, new LockSettings(settings.keyPrefix(), "paused",
                settings.defaultLease()), metrics, pausable);
        AtomicReference<FencedLease> pausedLease = new AtomicReference<>();
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(1);
        try {
            CompletableFuture<RunOutcome> job = CompletableFuture.supplyAsync(() -> {
                try {
                    return pausedReplica.runExclusively(name, LEASE, lease -> {
                        pausedLease.set(lease);
                        running.countDown();
                        try {
                            Thread.sleep(Duration.ofSeconds(30));
                        } catch (InterruptedException e) {
                            interrupted.set(true);
                            throw e;
                        }
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, Executors.newVirtualThreadPerTaskExecutor());
            assertTrue(running.await(5, TimeUnit.SECONDS));
            Thread.sleep(LEASE.multipliedBy(2).toMillis()); // a few renewals go through
            assertTrue(pausedLease.get().isValid(), "renewed while its watchdog ran");

            CountDownLatch resume = new CountDownLatch(1);
            pausable.execute(() -> awaitQuietly(resume)); // the pause starts
            FencedLease successor = locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ofSeconds(10)).orElseThrow();

            assertTrue(successor.token() > pausedLease.get().token(), "the successor's token is higher");
            assertFalse(pausedLease.get().isValid(), "the paused holder's lease reports invalid");
            assertFalse(job.isDone(), "the job has not been told yet: its watchdog is paused");

            resume.countDown(); // the pause ends; the first renew is refused
            assertEquals(RunOutcome.LEASE_LOST, job.get(10, TimeUnit.SECONDS));
            assertTrue(interrupted.get(), "the job was interrupted when its lease was found lost");
            assertTrue(successor.isValid());
            assertEquals(successor.owner() + ":" + successor.token(),
                    redis.value(String.class).get(LockKeys.of(settings.keyPrefix(), name).lock()),
                    "the paused holder's release did not touch the successor's lock");
            successor.release();
        } finally {
            pausedReplica.close();
        }
    }

    @Test
    void aHolderWhoseJobEndsBeforeItsPausedWatchdogNoticesIsStillToldItLostTheLock() throws Exception {
        assertLossToldAtTheEnd(false);
    }

    @Test
    void aJobThatFailsAfterItsLockWasTakenOverEndsAsALostLeaseNotAsAnError() throws Exception {
        // e.g. a Redis call that timed out while the replica was paused
        assertLossToldAtTheEnd(true);
    }

    private void assertLossToldAtTheEnd(boolean jobFails) throws Exception {
        String name = "paused-to-the-end-" + UUID.randomUUID();
        // As when a whole replica is stopped (SIGSTOP) and resumed: the job's own thread may finish first.
        ScheduledExecutorService pausable = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch resume = new CountDownLatch(1);
        pausable.execute(() -> awaitQuietly(resume));
        FencedLocks pausedReplica = new FencedLocks(redis, new LockSettings(settings.keyPrefix(), "paused",
                settings.defaultLease()), metrics, pausable);
        double lossesBefore = metrics.counter("taskfence.lock.losses", "lock", name).count();
        try {
            AtomicReference<FencedLease> successor = new AtomicReference<>();
            RunOutcome outcome = pausedReplica.runExclusively(name, LEASE, lease -> {
                successor.set(locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ofSeconds(10)).orElseThrow());
                if (jobFails) {
                    throw new IllegalStateException("the job's last step failed");
                }
            });

            assertEquals(RunOutcome.LEASE_LOST, outcome, "another holder had the lock when the job ended");
            assertEquals(lossesBefore + 1, metrics.counter("taskfence.lock.losses", "lock", name).count());
            assertTrue(successor.get().isValid(), "the successor keeps its lock");
            assertEquals(successor.get().holder(),
                    redis.value(String.class).get(LockKeys.of(settings.keyPrefix(), name).lock()));
            successor.get().release();
        } finally {
            resume.countDown();
            pausedReplica.close();
        }
    }

    @Test
    void whenRedisStopsAnsweringTheJobIsInterruptedAsItsLeaseRunsOut() throws Exception {
        String name = "silenced-" + UUID.randomUUID();
        FencedLease acquired = locks.tryAcquire(name, LEASE, Duration.ZERO).orElseThrow();
        // The same hold, but every renew from now on goes to a Redis that never answers.
        FencedLease silenced = new FencedLease(LockKeys.of(settings.keyPrefix(), name), acquired.owner(),
                acquired.token(), LEASE, System.nanoTime(), new LockScripts(silent));
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        long start = System.nanoTime();
        LeaseWatchdog watchdog = LeaseWatchdog.guardCurrentThread(silenced, timer);
        boolean interrupted = false;
        try {
            Thread.sleep(Duration.ofSeconds(20));
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            watchdog.close();
            timer.shutdownNow();
        }
        Duration after = Duration.ofNanos(System.nanoTime() - start);

        assertTrue(interrupted, "the job ran on after its lease ended");
        assertTrue(watchdog.lost());
        assertFalse(silenced.isValid());
        assertTrue(after.compareTo(LEASE.minusMillis(100)) >= 0, "interrupted after " + after + ", before the lease ended");
        assertTrue(after.compareTo(LEASE.plusSeconds(1)) < 0, "interrupted only " + after + " into a " + LEASE + " lease");
        assertFalse(Thread.currentThread().isInterrupted(), "the watchdog left the thread's interrupt flag set");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;

/** What the source articles get wrong about a lock's lifetime, each shown impossible here. */
@QuarkusTest
@TestServers
class LeaseLifecycleTest {

    @Inject
    FencedLocks locks;
    @Inject
    LockSettings settings;
    @Inject
    RedisDataSource redis;

    @Test
    void everyLockKeyCarriesItsLeaseFromTheMomentItIsWritten() {
        String name = uniqueName();
        FencedLease lease = locks.tryAcquire(name, Duration.ofSeconds(7), Duration.ZERO).orElseThrow();

        long pttl = redis.key().pttl(keys(name).lock());
        assertTrue(pttl > 6_000 && pttl <= 7_000, "lock key has PTTL " + pttl + " ms, not the 7 s lease");
        assertEquals(lease.owner() + ":" + lease.token(), redis.value(String.class).get(keys(name).lock()));
        lease.release();
    }

    @Test
    void aHolderThatDiesBlocksOthersOnlyUntilItsLeaseEnds() {
        String name = uniqueName();
        // From before the lease is taken: it cannot end sooner than 1.5 s after this, however slow the calls between.
        long start = System.nanoTime();
        FencedLease crashed = locks.tryAcquire(name, Duration.ofMillis(1_500), Duration.ZERO).orElseThrow();
        // The holder "crashes": it never releases and nothing renews its lease.

        assertTrue(locks.tryAcquire(name, Duration.ofSeconds(5), Duration.ZERO).isEmpty(), "taken while leased");
        FencedLease next = locks.tryAcquire(name, Duration.ofSeconds(5), Duration.ofSeconds(20)).orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        // Less a margin for Redis's clock, which counts the lease in whole milliseconds.
        assertTrue(waited.compareTo(Duration.ofMillis(1_450)) > 0, "got in after " + waited + ", before the lease ended");
        assertTrue(waited.compareTo(Duration.ofMillis(3_000)) < 0, "waited " + waited + " for a 1.5 s lease");
        assertTrue(next.token() > crashed.token());
        assertFalse(crashed.isValid(), "the crashed holder's lease is over");
        next.release();
    }

    @Test
    void aWrongOrOlderTokenCanNeitherReleaseNorRenewAnotherHoldersLock() throws InterruptedException {
        String name = uniqueName();
        FencedLease old = locks.tryAcquire(name, Duration.ofMillis(200), Duration.ZERO).orElseThrow();
        Thread.sleep(400); // the old holder's lease lapses while it is "paused"
        FencedLease current = locks.tryAcquire(name, Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
        String currentValue = current.owner() + ":" + current.token();

        FencedLease forged = new FencedLease(keys(name), current.owner(), current.token() + 1, Duration.ofMillis(50),
                System.nanoTime(), new LockScripts(redis));
        assertFalse(old.renew(), "an older holder renewed a lock it lost");
        assertFalse(old.release(), "an older holder released a lock it lost");
        assertFalse(forged.renew(), "a wrong token renewed the lock");
        assertFalse(forged.release(), "a wrong token released the lock");

        assertEquals(currentValue, redis.value(String.class).get(keys(name).lock()), "the lock changed hands");
        long pttl = redis.key().pttl(keys(name).lock());
        assertTrue(pttl > 15_000, "the current lease was shortened to " + pttl + " ms by a foreign renew");
        assertTrue(current.isValid());
        assertTrue(current.release());
    }

    @Test
    void aJobGoesOnOnlyWhileItsLeaseHoldsItsThreadIsNotInterruptedAndItsTimeIsNotUp() {
        FencedLease lease = locks.tryAcquire(uniqueName(), Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
        long inAMinute = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        assertTrue(lease.mayGoOn());
        assertTrue(lease.mayGoOnUntil(inAMinute));
        assertFalse(lease.mayGoOnUntil(System.nanoTime() - 1), "went on past its deadline");

        Thread.currentThread().interrupt(); // as the watchdog does when it loses the lease
        try {
            assertFalse(lease.mayGoOn(), "went on though interrupted");
            assertFalse(lease.mayGoOnUntil(inAMinute), "went on though interrupted");
        } finally {
            Thread.interrupted();
        }
        assertTrue(lease.release());
        assertFalse(lease.mayGoOnUntil(inAMinute), "went on after the lease was released");
    }

    @Test
    void scriptsThatRedisForgotAreSentAgainAndWork() {
        String name = uniqueName();
        redis.execute("SCRIPT", "FLUSH"); // as after a Redis restart or failover

        FencedLease lease = locks.tryAcquire(name, Duration.ofSeconds(5), Duration.ZERO).orElseThrow();
        redis.execute("SCRIPT", "FLUSH");
        assertTrue(lease.renew());
        redis.execute("SCRIPT", "FLUSH");
        assertTrue(lease.release());
        assertFalse(redis.key().exists(keys(name).lock()), "the lock is gone after release");
        // EVAL cached each script again, so the next calls go by SHA-1 alone.
        assertEquals(1, redis.execute("SCRIPT", "EXISTS", LuaScript.load("lock/release.lua").sha1()).get(0).toInteger());
    }

    @Test
    void tokensKeepRisingAcrossReleasesAndLapses() throws InterruptedException {
        String name = uniqueName();
        long previous = 0;
        for (int i = 0; i < 20; i++) {
            FencedLease lease = locks.tryAcquire(name, Duration.ofMillis(30), Duration.ofSeconds(5)).orElseThrow();
            assertTrue(lease.token() > previous, "token " + lease.token() + " after " + previous);
            previous = lease.token();
            if (i % 2 == 0) {
                lease.release();
            } // odd rounds let the lease lapse
        }
    }

    private LockKeys keys(String name) {
        return LockKeys.of(settings.keyPrefix(), name);
    }

    private static String uniqueName() {
        return "life-" + UUID.randomUUID();
    }
}

package io.taskfence.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.RedisMonitor;
import io.taskfence.testing.TestServers;

/**
 * tryAcquire's wait: bounded, woken by the release message, and never a polling loop. What the
 * server received is counted with MONITOR, so a client that polled could not hide it.
 */
@QuarkusTest
@TestServers
class WaitingTest {

    @Inject
    FencedLocks locks;
    @Inject
    LockSettings settings;
    @Inject
    RedisDataSource redis;
    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    @Test
    void aWaitEndsAtItsBoundWhileTheLockStaysTakenWithoutPolling() throws Exception {
        String name = "bounded-" + UUID.randomUUID();
        LockKeys keys = LockKeys.of(settings.keyPrefix(), name);
        FencedLease holder = locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        Duration bound = Duration.ofMillis(1_500);

        try (RedisMonitor monitor = RedisMonitor.watch(redisUrl, keys.lock())) {
            long start = System.nanoTime();
            Optional<FencedLease> got = locks.tryAcquire(name, Duration.ofSeconds(30), bound);
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            redis.key().exists(keys.lock() + ":end-of-wait");

            assertTrue(got.isEmpty(), "acquired a lock that was held");
            assertTrue(waited.compareTo(bound) >= 0, "gave up after " + waited + ", before its bound " + bound);
            assertTrue(waited.compareTo(bound.plusMillis(500)) < 0, "still waiting " + waited + " for a " + bound + " bound");
            List<String> attempts = acquireAttempts(monitor.commandsBefore(":end-of-wait"), keys);
            // First attempt, one more right after subscribing, one at the deadline; a 30 ms poll would be ~50.
            assertTrue(attempts.size() <= 3, "the waiter sent " + attempts.size() + " commands: " + attempts);
        } finally {
            holder.release();
        }
    }

    @Test
    void aWaiterIsWokenByTheReleaseNotByTheHoldersLeaseEnd() throws Exception {
        String name = "woken-" + UUID.randomUUID();
        FencedLease holder = locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        // A first short wait makes this replica subscribe to release messages, so the count below is exact.
        assertTrue(locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ofMillis(100)).isEmpty());

        List<String> attempts = assertWokenByRelease(holder);
        // One refused attempt, then the release, then one winning attempt.
        assertEquals(2, attempts.size(), "acquire attempts during the wait: " + attempts);
    }

    @Test
    void aWaiterIsStillWokenByTheReleaseAfterRedisDroppedTheSubscription() throws Exception {
        String name = "resubscribed-" + UUID.randomUUID();
        FencedLease holder = locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertTrue(locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ofMillis(100)).isEmpty());
        // The release subscription, the remote claims' one, the two of the reads that wait for a task's end or
        // progress, the one of the remote types' declarations and the one of the API keys' changes.
        await().atMost(Duration.ofSeconds(5)).until(() -> subscriptionClientIds().size() == 6);

        // Drop this replica's subscriptions, as a Redis restart or a proxy closing idle links would.
        List<Long> dropped = subscriptionClientIds();
        for (long id : dropped) {
            assertEquals(1, redis.execute("CLIENT", "KILL", "ID", Long.toString(id)).toLong());
        }
        // Gone from Redis's list; the replica may subscribe again (the channels a second later) before a look here.
        await().atMost(Duration.ofSeconds(5)).until(() -> Collections.disjoint(subscriptionClientIds(), dropped));

        assertWokenByRelease(holder);
    }

    /**
     * Starts a waiter for the holder's lock, releases the lock a second later, and asserts the waiter got
     * it within milliseconds.
     *
     * @return the acquire attempts Redis received from the start of the wait until it was won
     */
    private List<String> assertWokenByRelease(FencedLease holder) throws Exception {
        LockKeys keys = LockKeys.of(settings.keyPrefix(), holder.name());
        try (RedisMonitor monitor = RedisMonitor.watch(redisUrl, keys.lock())) {
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                FencedLease lease = locks.tryAcquire(holder.name(), Duration.ofSeconds(30), Duration.ofSeconds(20))
                        .orElseThrow();
                long at = System.nanoTime();
                lease.release();
                return at;
            }, Executors.newVirtualThreadPerTaskExecutor());
            monitor.awaitCommands(keys.fence(), 1); // the waiter was refused, with the holder's lease 29 s from its end
            Thread.sleep(200); // and is asleep

            long releasedAt = System.nanoTime();
            holder.release();
            Duration wokeAfter = Duration.ofNanos(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt);
            redis.key().exists(keys.lock() + ":end-of-wait");

            // A few milliseconds on an idle machine; the bound leaves room for a loaded CI runner, and is
            // far below both the holder's remaining lease (29 s) and any retry interval worth the name.
            assertTrue(wokeAfter.compareTo(Duration.ofMillis(500)) < 0, "woke " + wokeAfter + " after the release");
            System.out.printf("waiter acquired %d µs after the release%n", wokeAfter.toNanos() / 1_000);
            return acquireAttempts(monitor.commandsBefore(":end-of-wait"), keys);
        }
    }

    /**
     * This run's pub/sub connections: the test run names its Redis connections after its key prefix
     * (see RedisKeySpace); the lock client, the remote claims, the waits for ends and the remote types subscribe (no
     * worker runs here).
     */
    private List<Long> subscriptionClientIds() {
        List<Long> ids = new ArrayList<>();
        for (String client : redis.execute("CLIENT", "LIST", "TYPE", "pubsub").toString().split("\n")) {
            if (client.contains(" name=" + settings.keyPrefix() + " ")) {
                String id = client.substring(client.indexOf("id=") + 3, client.indexOf(' ', client.indexOf("id=")));
                ids.add(Long.parseLong(id));
            }
        }
        return ids;
    }

    /** The acquire script is the only command a client sends that names the fence counter. */
    private static List<String> acquireAttempts(List<String> commands, LockKeys keys) {
        return commands.stream().filter(c -> !c.contains("[0 lua]") && c.contains(keys.fence())).toList();
    }
}

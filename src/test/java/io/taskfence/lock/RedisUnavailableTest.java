package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.redis.client.RedisClientName;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.UnresponsiveRedis;

/** Without Redis, lock calls fail with a clear exception within the client's timeout; nothing hangs. */
@QuarkusTest
@TestServers
class RedisUnavailableTest {

    private static final Duration TIMEOUT = DurationConverter.parseDuration(UnresponsiveRedis.TIMEOUT);
    private static final Duration MARGIN = Duration.ofSeconds(2);

    @Inject
    @RedisClientName(UnresponsiveRedis.SILENT)
    RedisDataSource silent;
    @Inject
    @RedisClientName(UnresponsiveRedis.REFUSED)
    RedisDataSource refused;
    @Inject
    LockSettings settings;
    @Inject
    MeterRegistry metrics;

    @Test
    void aServerThatNeverAnswersFailsTheAcquireWithinTheTimeout() {
        assertFailsInTime(silent, Duration.ZERO);
        assertFailsInTime(silent, Duration.ofSeconds(30));
    }

    @Test
    void aServerThatRefusesConnectionsFailsTheAcquireWithinTheTimeout() {
        assertFailsInTime(refused, Duration.ZERO);
        assertFailsInTime(refused, Duration.ofSeconds(30));
    }

    private void assertFailsInTime(RedisDataSource unreachable, Duration waitAtMost) {
        FencedLocks locks = new FencedLocks(unreachable, settings, metrics);
        try {
            long start = System.nanoTime();
            LockUnavailableException failure = assertThrows(LockUnavailableException.class,
                    () -> locks.tryAcquire("unreachable", Duration.ofSeconds(10), waitAtMost));
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertTrue(took.compareTo(TIMEOUT.plus(MARGIN)) < 0, "failed only after " + took);
            assertTrue(failure.getMessage().contains("Redis did not complete lock/acquire.lua"), failure.getMessage());
        } finally {
            locks.close();
        }
    }
}

package io.taskfence.queue;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.redis.client.RedisClientName;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.lock.LockSettings;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.UnresponsiveRedis;

/**
 * Without Redis, the queue's reads fail with {@link QueueUnavailableException}, which the fenced jobs skip with a
 * warning and the API answers 503 (DESIGN.md, "REST API"), instead of a raw client exception (an error with a stack
 * trace in the jobs' log, a 500 for {@code GET /api/v1/stats}).
 */
@QuarkusTest
@TestServers
class QueueUnavailableTest {

    @Inject
    @RedisClientName(UnresponsiveRedis.REFUSED)
    RedisDataSource refused;
    @Inject
    LockSettings settings;

    @Test
    void theQueuesReadsFailAsQueueUnavailableNamingTheCommand() {
        TaskQueue queue = new TaskQueue(refused, settings);
        QueueUnavailableException depth = assertThrows(QueueUnavailableException.class, queue::depth);
        assertTrue(depth.getMessage().startsWith("Redis did not complete XLEN: "), depth.getMessage());
        assertThrows(QueueUnavailableException.class, queue::consumers);
        assertThrows(QueueUnavailableException.class, queue::queuedTaskIds);
    }
}

package io.taskfence.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.lock.FencedLease;
import io.taskfence.lock.FencedLocks;
import io.taskfence.lock.LockSettings;
import io.taskfence.queue.TaskQueue.Message;
import io.taskfence.testing.TestServers;

/**
 * A stream entry may carry several task ids (taskfence.dispatch.tasks-per-entry): the push splits the ids in
 * order, a read or a reclaim hands over whole entries, and an entry naming something other than task ids is
 * still handed over (with the ids it does name) so that it is acknowledged instead of lingering. Runs on a
 * stream of its own (its own key prefix under this run's), which the service's workers do not read.
 */
@QuarkusTest
@TestServers
class QueueEntriesTest {

    private static final Duration NO_WAIT = Duration.ofMillis(10);

    @Inject
    RedisDataSource redis;
    @Inject
    LockSettings settings;
    @Inject
    MeterRegistry metrics;

    private LockSettings own;
    private TaskQueue queue;
    private FencedLease dispatching;

    @BeforeEach
    void ownStreamAndDispatchLease() {
        own = new LockSettings(settings.keyPrefix() + ":entries-" + UUID.randomUUID(), "test",
                settings.defaultLease());
        queue = new TaskQueue(redis, own);
        queue.ensureGroup();
        dispatching = new FencedLocks(redis, own, metrics)
                .tryAcquire(TaskQueue.DISPATCH_LOCK, Duration.ofMinutes(1), Duration.ZERO).orElseThrow();
    }

    @AfterEach
    void release() {
        dispatching.release();
    }

    @Test
    void idsArePushedInOrderSeveralToAnEntryAndEachEntryIsHandedOverWhole() {
        List<UUID> ids = IntStream.range(0, 20).mapToObj(i -> UUID.randomUUID()).toList();
        assertTrue(queue.push(dispatching, ids, 8));

        assertEquals(3, queue.depth(), "20 ids, 8 to an entry");
        assertEquals(Set.copyOf(ids), queue.queuedTaskIds());
        Message first = queue.read("replica-a", 1, NO_WAIT).getFirst();
        assertEquals(ids.subList(0, 8), first.taskIds());

        // replica-a dies before claiming: another consumer takes the entry over with all its ids.
        List<Message> reclaimed = queue.reclaim("replica-b", Duration.ZERO, 10);
        assertEquals(List.of(first), reclaimed);
        List<Message> rest = queue.read("replica-b", 10, NO_WAIT);
        assertEquals(List.of(ids.subList(8, 16), ids.subList(16, 20)), rest.stream().map(Message::taskIds).toList());

        List<Message> handled = new ArrayList<>(reclaimed);
        handled.addAll(rest);
        queue.done(handled);
        assertEquals(0, queue.depth());
        assertEquals(0, queue.pending());
    }

    @Test
    void oneIdToAnEntryIsTheFormatBeforeEntriesCarriedSeveral() {
        UUID id = UUID.randomUUID();
        assertTrue(queue.push(dispatching, List.of(id), 8));

        List<String> fields = new ArrayList<>();
        redis.execute("XRANGE", streamKey(), "-", "+").get(0).get(1).forEach(field -> fields.add(field.toString()));
        assertEquals(List.of("task", id.toString()), fields, "what replicas of the version before read");
    }

    @Test
    void anEntryNamingNoTaskIdIsHandedOverEmptyAndAcknowledged() {
        UUID valid = UUID.randomUUID();
        redis.execute("XADD", streamKey(), "*", "task", "not-a-task-id");
        redis.execute("XADD", streamKey(), "*", "tasks", valid + " " + "x".repeat(100));

        assertEquals(Set.of(valid), queue.queuedTaskIds(), "recovery reads the stream without failing");
        List<Message> read = queue.read("replica-a", 10, NO_WAIT);
        assertEquals(List.of(List.of(), List.of(valid)), read.stream().map(Message::taskIds).toList());
        queue.done(read);
        assertEquals(0, queue.depth());
        assertEquals(0, queue.pending());
    }

    @Test
    void aPusherThatNoLongerHoldsTheDispatchLockPushesNothing() {
        dispatching.release();
        assertFalse(queue.push(dispatching, List.of(UUID.randomUUID(), UUID.randomUUID()), 8));
        assertEquals(0, queue.depth());
    }

    /** The stream's key as DESIGN.md gives it, "Queue (Redis)". */
    private String streamKey() {
        return own.keyPrefix() + ":queue:{dispatch}";
    }
}

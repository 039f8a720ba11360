package io.taskfence.jobs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.lock.LockSettings;
import io.taskfence.queue.TaskQueue;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.testing.TestServers;

/**
 * With no worker taking messages, dispatch fills the queue up to {@code taskfence.dispatch.max-queue-depth}
 * and no further; recovery leaves the tasks waiting there alone however long they wait, and returns them
 * to PENDING only once their messages are gone.
 */
@QuarkusTest
@TestServers
@TestProfile(QueueDepthTest.DispatchWithoutWorkers.class)
class QueueDepthTest {

    static final int MAX_DEPTH = 50;

    public static final class DispatchWithoutWorkers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.dispatch.enabled", "true",
                    "taskfence.dispatch.max-queue-depth", Integer.toString(MAX_DEPTH),
                    "taskfence.lock.lease", "3s",
                    "taskfence.recovery.interval", "1s",
                    "taskfence.recovery.enqueued-timeout", "2s");
        }
    }

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueue queue;
    @Inject
    DataSource db;
    @Inject
    RedisDataSource redis;
    @Inject
    LockSettings settings;

    @Test
    void theQueueNeverHoldsMoreThanItsDepthAndWaitingTasksAreNotTakenForLost() throws Exception {
        // The stream is the test run's, not this schema's: messages an earlier test class's profile left in it
        // (its workers stopped with entries unread) would count against this depth.
        redis.key().del(settings.keyPrefix() + ":queue:{" + TaskQueue.DISPATCH_LOCK + "}");
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(transitions.submit(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 0, null, null, null))
                    .task().id());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> queue.depth() == MAX_DEPTH);
        // Other test classes may have left ENQUEUED rows without messages in the shared table: recovery
        // returns those first.
        await().atMost(Duration.ofSeconds(20)).until(() -> queue.queuedTaskIds().equals(enqueuedTasks()));

        // Several recovery runs later (ENQUEUED for longer than the 2 s time-out), nothing has moved.
        Thread.sleep(5_000);
        assertEquals(MAX_DEPTH, queue.depth(), "dispatch went past the queue's depth");
        assertEquals(queue.queuedTaskIds(), enqueuedTasks(), "every ENQUEUED task has its message, and no other is queued");
        assertEquals(0, Sql.count(db, "select count(*) from tasks where id = any(?) and enqueues > 1",
                (Object) ids.toArray(UUID[]::new)), "recovery took a task that waited in the queue for lost");

        // The messages are lost (as when Redis loses the stream): recovery returns every one of those tasks
        // (dispatch then fills the queue again, with whichever due tasks come first).
        UUID[] lost = queue.queuedTaskIds().toArray(UUID[]::new);
        redis.key().del(settings.keyPrefix() + ":queue:{" + TaskQueue.DISPATCH_LOCK + "}");
        await().atMost(Duration.ofSeconds(30)).until(() -> Sql.count(db,
                "select count(*) from tasks where id = any(?) and status = 'ENQUEUED' and enqueues = 1", (Object) lost) == 0
                && queue.depth() == MAX_DEPTH && queue.queuedTaskIds().equals(enqueuedTasks()));
    }

    private Set<UUID> enqueuedTasks() {
        Set<UUID> enqueued = new HashSet<>();
        Sql.rows(db, "select id from tasks where status = 'ENQUEUED'", row -> enqueued.add(row.getObject(1, UUID.class)));
        return enqueued;
    }
}

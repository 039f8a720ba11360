package io.taskfence.jobs;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.awaitility.core.ConditionTimeoutException;
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
import io.taskfence.task.submit.outcome.Submission;
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
    static final Duration RECOVERY_INTERVAL = Duration.ofSeconds(1);
    /**
     * Well above the longest a busy machine may take from a dispatch's transaction to its push: a task recovery
     * returned before its message was pushed would leave that message here for good (no worker reads it), and the
     * queue would never match the table.
     */
    static final Duration ENQUEUED_TIMEOUT = Duration.ofSeconds(5);

    public static final class DispatchWithoutWorkers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.dispatch.enabled", "true",
                    "taskfence.dispatch.max-queue-depth", Integer.toString(MAX_DEPTH),
                    "taskfence.lock.lease", "3s",
                    "taskfence.recovery.interval", RECOVERY_INTERVAL.toMillis() + "ms",
                    "taskfence.recovery.enqueued-timeout", ENQUEUED_TIMEOUT.toMillis() + "ms");
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
        // This profile is this class's alone: its application starts with a schema and a key prefix of its own (the
        // test resources start again with each profile), so the table and the stream hold only what it makes here.

        // In one transaction, so that dispatch finds all 200 due at once and fills the queue in one batch. One by one,
        // a dispatch between two submissions could take fewer than the depth (over half of it), then wait for workers
        // (none here) to make room for a whole refill, leaving the queue short of its depth: CI's busy machine once
        // did so, and a busy-looping machine here (`while :; do :; done`, four of them) again, one run of three.
        List<UUID> ids = transitions.submitAll(Collections.nCopies(200,
                new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 0, null, null, null))).stream()
                .map(submitted -> ((Submission) submitted).task().id()).toList();
        await().atMost(Duration.ofSeconds(20)).until(queue::depth, equalTo((long) MAX_DEPTH)); // says the depth if not
        awaitQueueMatchingTable();

        // Two recovery runs after every ENQUEUED task has passed the time-out (by PostgreSQL's clock, which recovery
        // goes by), nothing has moved.
        await().atMost(Duration.ofSeconds(30)).until(() -> Sql.count(db, "select count(*) from tasks where status = "
                + "'ENQUEUED' and updated_at > now() - ? * interval '1 millisecond'",
                ENQUEUED_TIMEOUT.plus(RECOVERY_INTERVAL.multipliedBy(2)).toMillis()) == 0);
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

    private void awaitQueueMatchingTable() {
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> queue.queuedTaskIds().equals(enqueuedTasks()));
        } catch (ConditionTimeoutException e) {
            Set<UUID> queued = queue.queuedTaskIds();
            Set<UUID> enqueued = enqueuedTasks();
            Set<UUID> differing = new HashSet<>(queued);
            differing.addAll(enqueued);
            differing.removeIf(id -> queued.contains(id) && enqueued.contains(id));
            List<String> rows = new ArrayList<>();
            Sql.rows(db, "select id, type, status, owner, updated_at, exists (select 1 from tasks_in_flight "
                    + "where task_id = id) from tasks where id = any(?)", row -> rows.add(row.getString(1) + " "
                    + row.getString(2) + " " + row.getString(3) + " owner " + row.getString(4) + " updated "
                    + row.getString(5) + " in flight " + row.getBoolean(6) + (queued.contains(row.getObject(1, UUID.class))
                            ? " queued" : " not queued")), (Object) differing.toArray(UUID[]::new));
            throw new AssertionError("queue (" + queued.size() + ") and ENQUEUED rows (" + enqueued.size()
                    + ") still differ after 20 s: " + rows, e);
        }
    }

    private Set<UUID> enqueuedTasks() {
        Set<UUID> enqueued = new HashSet<>();
        Sql.rows(db, "select id from tasks where status = 'ENQUEUED'", row -> enqueued.add(row.getObject(1, UUID.class)));
        return enqueued;
    }
}

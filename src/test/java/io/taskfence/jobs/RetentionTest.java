package io.taskfence.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.task.FinishedTasks;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.TestServers;

/**
 * Retention (DESIGN.md, "Configuration"): the fenced job deletes the finished tasks older than their status's age, with
 * their history, old {@code dispatch_log} rows, long completed batches and old audit log entries, a batch at a time until none is left; it leaves unfinished
 * and younger ones, and a stale token deletes nothing. Ages of hours stand in for days: tasks are backdated.
 */
@QuarkusTest
@TestServers
@TestProfile(RetentionTest.ShortAges.class)
class RetentionTest {

    private static final int BATCH = 2;
    private static final Duration BACKOFF = Duration.ofSeconds(1);

    public static final class ShortAges implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.retention.succeeded", "1h",
                    "taskfence.retention.dead", "2h",
                    "taskfence.retention.cancelled", "3h",
                    "taskfence.retention.dispatch-log", "1h",
                    "taskfence.retention.batch-size", Integer.toString(BATCH));
        }
    }

    @Inject
    Retention retention;
    @Inject
    FinishedTasks finished;
    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;
    @Inject
    DataSource db;
    @Inject
    MeterRegistry metrics;

    @Test
    void theJobDeletesExactlyTheFinishedTasksPastTheirStatusesAgesWithTheirHistory() {
        UUID succeededOld = succeeded(Duration.ofMinutes(61));
        UUID succeededYoung = succeeded(Duration.ofMinutes(59));
        UUID deadOld = dead(Duration.ofMinutes(121));
        UUID deadYoung = dead(Duration.ofMinutes(61));
        UUID cancelledOld = cancelled(Duration.ofMinutes(181));
        UUID cancelledYoung = cancelled(Duration.ofMinutes(121));
        UUID enqueuedOld = backdated(fixtures.enqueued(), Duration.ofDays(40));
        UUID processingOld = backdated(fixtures.claimed().taskId(), Duration.ofDays(40));
        // Created long ago, finished just now: its age counts from its finish.
        UUID createdOldFinishedNow = fixtures.pending().id();
        fixtures.backdate(createdOldFinishedNow, Duration.ofDays(40));
        assertTrue(transitions.complete(fixtures.claimed(queries.find(createdOldFinishedNow).orElseThrow()), null));
        Claim failing = fixtures.claimed();
        transitions.fail(failing, "again later", false, BACKOFF, BACKOFF).orElseThrow();
        UUID failedOld = backdated(failing.taskId(), Duration.ofDays(40));
        // Last: making a fixture enqueues every due task, which would move these on.
        UUID pendingOld = backdated(fixtures.pending().id(), Duration.ofDays(40));
        long oldLog = dispatchLogRow(Duration.ofMinutes(61));
        long youngLog = dispatchLogRow(Duration.ofMinutes(59));
        UUID batchOld = completedBatch(Duration.ofMinutes(61));
        UUID batchYoung = completedBatch(Duration.ofMinutes(59));
        UUID batchOpen = UUID.randomUUID();
        Sql.run(db, "insert into batches (id, then_task_id, open, created_at) values (?, gen_random_uuid(), true, "
                + "now() - interval '40 days')", batchOpen);
        // Audit entries are kept as long as the longest-kept finished task: 3 h here (CANCELLED's).
        long auditOld = auditEntry(Duration.ofMinutes(181));
        long auditYoung = auditEntry(Duration.ofMinutes(179));
        double succeededBefore = deleted(TaskStatus.SUCCEEDED);

        retention.run();

        for (UUID gone : List.of(succeededOld, deadOld, cancelledOld)) {
            assertTrue(queries.find(gone).isEmpty(), "task " + gone + " is still there");
            assertEquals(0, events(gone), "task " + gone + "'s history is still there");
        }
        for (UUID kept : List.of(succeededYoung, deadYoung, cancelledYoung, createdOldFinishedNow, pendingOld,
                enqueuedOld, processingOld, failedOld)) {
            assertTrue(queries.find(kept).isPresent(), "task " + kept + " was deleted");
            assertTrue(events(kept) > 0, "task " + kept + "'s history was deleted");
        }
        assertEquals(0, Sql.count(db, "select count(*) from dispatch_log where id = ?", oldLog));
        assertEquals(1, Sql.count(db, "select count(*) from dispatch_log where id = ?", youngLog));
        assertEquals(0, Sql.count(db, "select count(*) from batches where id = ?", batchOld),
                "a batch completed longer ago than the SUCCEEDED age goes");
        assertEquals(2, Sql.count(db, "select count(*) from batches where id in (?, ?)", batchYoung, batchOpen));
        assertTrue(deleted(TaskStatus.SUCCEEDED) >= succeededBefore + 1, "the deletion was not counted");
        assertEquals(0, Sql.count(db, "select count(*) from audit_log where id = ?", auditOld),
                "an audit entry older than the longest task age goes");
        assertEquals(1, Sql.count(db, "select count(*) from audit_log where id = ?", auditYoung));
    }

    private long auditEntry(Duration ago) {
        return Sql.count(db, "insert into audit_log (at, key_name, request_id, operation, method, path, status) values "
                + "(now() - ? * interval '1 millisecond', 'operator', 'r', 'pauseType', 'POST', '/api/v1/x', 200) "
                + "returning id", ago.toMillis());
    }

    /** A batch row completed {@code age} ago. */
    private UUID completedBatch(Duration age) {
        UUID id = UUID.randomUUID();
        Sql.run(db, "insert into batches (id, then_task_id, open, created_at, closed_at, completed_at) values "
                + "(?, gen_random_uuid(), false, now() - interval '40 days', now() - interval '40 days', "
                + "now() - ? * interval '1 millisecond')", id, age.toMillis());
        return id;
    }

    @Test
    void moreOldTasksThanOneBatchAllGoInOneRun() {
        List<UUID> old = new ArrayList<>();
        for (int i = 0; i < BATCH * 3 + 1; i++) {
            old.add(succeeded(Duration.ofHours(2)));
        }
        double before = deleted(TaskStatus.SUCCEEDED);

        retention.run();

        old.forEach(id -> assertTrue(queries.find(id).isEmpty(), "task " + id + " is still there"));
        assertTrue(deleted(TaskStatus.SUCCEEDED) >= before + old.size(), "deletions counted: "
                + (deleted(TaskStatus.SUCCEEDED) - before));
    }

    @Test
    void aBatchStartsAfterTheLastTaskOfTheBatchBefore() {
        // Older than any other test's tasks, so that they are the first a batch from the start looks at.
        UUID first = succeeded(Duration.ofDays(1003));
        UUID second = succeeded(Duration.ofDays(1002));
        UUID third = succeeded(Duration.ofDays(1001));
        FenceToken fence = TaskFixtures.fence("retention-" + UUID.randomUUID(), 1);

        FinishedTasks.Deleted batch = finished.deleteOlderThan(fence, TaskStatus.SUCCEEDED, Duration.ofHours(1),
                FinishedTasks.Position.START, 2);
        assertEquals(2, batch.tasks());
        assertTrue(queries.find(first).isEmpty() && queries.find(second).isEmpty(), "the two oldest went first");
        assertTrue(queries.find(third).isPresent());
        // Behind where the run has got to: a run does not look back, so a task it has passed is read once a run.
        UUID behind = succeeded(Duration.ofDays(1004));

        FinishedTasks.Deleted after = finished.deleteOlderThan(fence, TaskStatus.SUCCEEDED, Duration.ofHours(1),
                batch.next().orElseThrow(), 2);
        assertTrue(after.tasks() >= 1, "the next batch deleted nothing");
        assertTrue(queries.find(third).isEmpty(), "the next batch went on after the first one's last task");
        assertTrue(queries.find(behind).isPresent(), "the next batch looked back before where the first one ended");

        assertEquals(1, finished.deleteOlderThan(fence, TaskStatus.SUCCEEDED, Duration.ofHours(1),
                FinishedTasks.Position.START, 1).tasks(), "a run from the start");
        assertTrue(queries.find(behind).isEmpty(), "a run from the start finds it");
    }

    @Test
    void aStaleTokenDeletesNothing() {
        String lock = "retention-" + UUID.randomUUID();
        UUID first = succeeded(Duration.ofHours(2));
        assertEquals(1, finished.deleteOlderThan(TaskFixtures.fence(lock, 5), TaskStatus.SUCCEEDED, Duration.ofHours(1),
                FinishedTasks.Position.START, 1).tasks(),
                "the current token deleted nothing");
        UUID second = succeeded(Duration.ofHours(2));
        long log = dispatchLogRow(Duration.ofHours(2));

        StaleFenceException refused = assertThrows(StaleFenceException.class, () -> finished.deleteOlderThan(
                TaskFixtures.fence(lock, 4), TaskStatus.SUCCEEDED, Duration.ofHours(1), FinishedTasks.Position.START, 10));
        assertEquals(4, refused.token());
        assertThrows(StaleFenceException.class,
                () -> finished.deleteDispatchLogOlderThan(TaskFixtures.fence(lock, 4), Duration.ofHours(1), 10));

        assertTrue(queries.find(first).isEmpty());
        assertTrue(queries.find(second).isPresent(), "a stale token deleted a task");
        assertTrue(events(second) > 0, "a stale token deleted a task's history");
        assertEquals(1, Sql.count(db, "select count(*) from dispatch_log where id = ?", log), "a stale token deleted a log row");
    }

    @Test
    void onlyFinishedStatusesCanBeDeleted() {
        assertThrows(IllegalArgumentException.class, () -> finished.deleteOlderThan(TaskFixtures.fence("retention-"
                + UUID.randomUUID(), 1), TaskStatus.FAILED, Duration.ofHours(1), FinishedTasks.Position.START, 10));
    }

    private UUID succeeded(Duration ago) {
        Claim claim = fixtures.claimed();
        assertTrue(transitions.complete(claim, null));
        return backdated(claim.taskId(), ago);
    }

    private UUID dead(Duration ago) {
        Claim claim = fixtures.claimed();
        assertEquals(TaskStatus.DEAD, transitions.fail(claim, "permanent", true, BACKOFF, BACKOFF).orElseThrow());
        return backdated(claim.taskId(), ago);
    }

    private UUID cancelled(Duration ago) {
        UUID id = transitions.cancel(fixtures.pending().id()).orElseThrow().id();
        return backdated(id, ago);
    }

    private UUID backdated(UUID id, Duration ago) {
        fixtures.backdate(id, ago);
        return id;
    }

    private long events(UUID id) {
        return Sql.count(db, "select count(*) from task_events where task_id = ?", id);
    }

    private long dispatchLogRow(Duration ago) {
        return Sql.count(db, "insert into dispatch_log (token, holder, tasks, at) values (1, 'test', 1, "
                + "now() - ? * interval '1 millisecond') returning id", ago.toMillis());
    }

    private double deleted(TaskStatus status) {
        return metrics.counter("taskfence.retention.deleted", "status", status.name()).count();
    }
}

package io.taskfence.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskFilter;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.query.TaskPage;

/**
 * The storage under the state machine (DESIGN.md, "Storage"): the tables that stand in for an index on status hold
 * exactly the tasks they should after every kind of transition has raced on the same tasks, and a listing by
 * any status, which reads through them, finds exactly the tasks in it.
 */
@QuarkusTest
@TestServers
class StorageTest {

    /** A statement that writes task rows, as ArchitectureTest reads it from the classes. */
    private static final Pattern TASK_WRITE = Pattern.compile(
            "(?i)\\binsert\\s+into\\s+tasks\\b|\\bupdate\\s+tasks(?:\\s+(?:as\\s+)?(?!set\\b)\\w+)?\\s+set\\b");
    private static final int TASKS = 40;
    private static final int RACERS = 8;
    private static final int ROUNDS = 150;

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;
    @Inject
    TaskHistory history;
    @Inject
    DataSource db;

    /**
     * The triggers on tasks in the service's schema are exactly those R__task_triggers.sql creates (the schema in
     * force, in one file), and none of their functions writes tasks (DESIGN.md, "Storage").
     */
    @Test
    void theTriggersInForceAreTheRepeatableMigrationsAndNoneWritesTasks() throws Exception {
        String file = new String(getClass().getResourceAsStream("/db/migration/R__task_triggers.sql").readAllBytes(),
                StandardCharsets.UTF_8);
        Set<String> declared = new TreeSet<>(Pattern
                .compile("create or replace trigger (\\w+) ").matcher(file).results().map(m -> m.group(1)).toList());
        Set<String> inForce = new TreeSet<>();
        List<String> writers = new ArrayList<>();
        Sql.rows(db, "select t.tgname, pg_get_functiondef(t.tgfoid) from pg_trigger t "
                + "where t.tgrelid = 'tasks'::regclass and not t.tgisinternal", row -> {
                    inForce.add(row.getString(1));
                    if (TASK_WRITE.matcher(row.getString(2)).find()) {
                        writers.add(row.getString(1));
                    }
                });
        assertEquals(declared, inForce);
        assertEquals(List.of(), writers, "triggers whose function writes tasks");
    }

    @Test
    void racingTransitionsLeaveADueRowPerWaitingTaskAndAnInFlightRowPerQueuedOrRunningOne() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            ids.add(fixtures.pending(100, null).id());
        }
        ConcurrentLinkedQueue<Claim> held = new ConcurrentLinkedQueue<>();
        String dispatchLock = "storage-race-" + UUID.randomUUID();
        String recoveryLock = "storage-recovery-" + UUID.randomUUID();
        AtomicInteger moves = new AtomicInteger();

        Race.run(RACERS, racer -> {
            String name = "racer-" + racer;
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int round = 0; round < ROUNDS; round++) {
                UUID id = ids.get(random.nextInt(ids.size()));
                int won = switch (random.nextInt(9)) {
                    case 0 -> transitions.cancel(id).isPresent() ? 1 : 0;
                    case 1 -> transitions.retry(id).isPresent() ? 1 : 0;
                    case 2 -> transitions.enqueueDue(TaskFixtures.fence(dispatchLock, 1), 10).size();
                    case 3 -> {
                        List<UUID> batch = List.of(id, ids.get(random.nextInt(ids.size())));
                        // A short lease for some, so that recovery has expired ones to fail.
                        Duration lease = random.nextBoolean() ? TaskFixtures.LEASE : Duration.ofMillis(1);
                        List<Claim> claimed = transitions.claim(batch, name, lease);
                        held.addAll(claimed);
                        yield claimed.size();
                    }
                    case 4 -> {
                        Claim claim = held.poll();
                        yield claim == null ? 0 : transitions.complete(List.of(new Completion(claim, null))).size();
                    }
                    case 5 -> {
                        Claim claim = held.poll();
                        yield claim == null ? 0 : transitions.fail(claim, "racing failure", random.nextInt(4) == 0,
                                Duration.ZERO, Duration.ZERO).isPresent() ? 1 : 0;
                    }
                    case 6 -> {
                        Claim claim = held.poll();
                        yield claim == null ? 0 : transitions.later(claim, Duration.ZERO).isPresent() ? 1 : 0;
                    }
                    case 7 -> transitions.failExpiredLeases(TaskFixtures.fence(recoveryLock, 1), Duration.ZERO,
                            Duration.ZERO);
                    default -> transitions.requeueStaleEnqueued(TaskFixtures.fence(recoveryLock, 1),
                            Duration.ZERO, Set.of());
                };
                moves.addAndGet(won);
            }
        });

        assertTrue(moves.get() > TASKS * 3, "too few transitions won to prove anything: " + moves.get());
        for (UUID id : ids) {
            TaskRow row = row(id);
            boolean waiting = Set.of("PENDING", "FAILED").contains(row.status());
            boolean inFlight = Set.of("ENQUEUED", "PROCESSING").contains(row.status());
            assertEquals(waiting ? 1 : 0, row.dueRows(), "task " + id + " " + row.status() + ": its tasks_due rows");
            if (waiting) {
                assertTrue(row.dueMatches(), "task " + id + ": its tasks_due row has another run_at or priority");
            }
            assertEquals(inFlight ? 1 : 0, row.inFlightRows(), "task " + id + " " + row.status() + ": its tasks_in_flight rows");
            if (Set.of("FAILED", "DEAD", "CANCELLED").contains(row.status())) {
                assertEquals(1, row.offPathRows(), "task " + id + " " + row.status() + ": no tasks_off_path row");
            }
        }
    }

    @Test
    void aListingByStatusFindsExactlyTheTasksInItWhateverTheyWentThrough() {
        String owner = "storage-" + UUID.randomUUID();
        // 0 stays PENDING; 1 ENQUEUED; 2 PROCESSING; 3 SUCCEEDED; 4 FAILED; 5 DEAD; 6 CANCELLED; 7 failed, then
        // succeeded (its tasks_off_path row stays); 8 cancelled, then retried: PENDING again; 9 WAITING for 0.
        List<UUID> ids = new ArrayList<>(Collections.nCopies(10, (UUID) null));
        for (int i = 1; i <= 7; i++) {
            ids.set(i, submit(owner));
        }
        fixtures.enqueue(ids.subList(1, 8));
        Map<UUID, Claim> claimOf = new HashMap<>();
        transitions.claim(ids.subList(2, 8), "lister", TaskFixtures.LEASE).forEach(claim -> claimOf.put(claim.taskId(), claim));
        assertEquals(6, claimOf.size());
        List<Claim> claims = ids.stream().map(claimOf::get).toList();
        UUID retried = ids.get(7);
        transitions.fail(claims.get(7), "once", false, Duration.ZERO, Duration.ZERO).orElseThrow();
        fixtures.enqueue(List.of(retried)); // the only one of the owner's tasks then due
        assertTrue(transitions.complete(transitions.claim(retried, "lister", TaskFixtures.LEASE).orElseThrow(), null));
        assertEquals(1, transitions.complete(List.of(new Completion(claims.get(3), null))).size());
        transitions.fail(claims.get(4), "once", false, Duration.ZERO, Duration.ZERO).orElseThrow();
        transitions.fail(claims.get(5), "for good", true, Duration.ZERO, Duration.ZERO).orElseThrow();
        transitions.cancel(ids.get(6)).orElseThrow();
        ids.set(0, submit(owner));
        ids.set(8, submit(owner));
        transitions.cancel(ids.get(8)).orElseThrow();
        transitions.retry(ids.get(8)).orElseThrow();
        ids.set(9, transitions.submit(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 2, 0, null, null, null)
                .ownedBy(owner).waitingFor(new NewTask.Dependencies(List.of(ids.get(0)), false))).task().id());

        for (TaskStatus status : TaskStatus.values()) {
            Set<UUID> listed = new HashSet<>();
            String after = null;
            do {
                TaskPage page = queries.page(TaskScope.ALL, new TaskFilter(owner, status, null, null), 2, after, Set.of());
                page.items().forEach(task -> assertTrue(listed.add(task.id()), "listed twice: " + task.id()));
                after = page.next();
            } while (after != null);
            Set<UUID> inTable = new HashSet<>();
            Sql.rows(db, "select id from tasks where owner = '" + owner + "' and status = '" + status + "'",
                    row -> inTable.add(row.getObject(1, UUID.class)));
            assertEquals(inTable, listed, "the listing of " + status);
            assertTrue(!inTable.isEmpty(), "no task of the test is " + status);
        }
    }

    @Test
    void aTaskInsertedAndCancelledBySqlFromAnotherSchemasSessionIsBookedInTheServicesSchema() throws Exception {
        String schema = Sql.value(db, "select current_schema()");
        UUID id = UUID.randomUUID();
        // The triggers name their tables unqualified: they must find them in their own schema, whatever the
        // session's search_path (an operator's psql, naming the table schema.tasks).
        try (var connection = db.getConnection(); var statement = connection.createStatement()) {
            statement.execute("set search_path = public");
            try {
                statement.execute("insert into \"" + schema + "\".tasks (id, type, payload, max_attempts) values ('"
                        + id + "', 'noop', '{}', 3)");
                assertEquals(1, Sql.count(db, "select count(*) from tasks_due where task_id = ?", id));
                statement.execute("update \"" + schema + "\".tasks set status = 'CANCELLED' where id = '" + id + "'");
            } finally {
                statement.execute("reset search_path"); // the connection goes back to the pool
            }
        }
        TaskRow row = row(id);
        assertEquals(new TaskRow("CANCELLED", 0, false, 0, 1), row);
        assertEquals(List.of(TaskStatus.PENDING, TaskStatus.CANCELLED),
                history.events(id, TaskScope.ALL).orElseThrow().stream().map(TaskEvent::to).toList());
    }

    @Test
    void dueRowsLeftBySqlDoNotHoldDispatchBackAndDeletedTasksTakeTheirRowsAlong() {
        // What other classes left due is taken first: a batch takes the owners in turn, so a third owner's due task
        // could take one of the two places below before the stale rows are met.
        transitions.enqueueDue(TaskFixtures.fence("storage-clear-" + UUID.randomUUID(), 1), 1_000_000);
        String owner = "storage-" + UUID.randomUUID();
        UUID deleted = submit(owner);
        Sql.run(db, "delete from tasks where id = ?", deleted);
        assertEquals(0, Sql.count(db, "select count(*) from tasks_due where task_id = ?", deleted));

        // At the head of the due order: a row of no task, and the row of a task moved to ENQUEUED by hand (a
        // happy-path transition by SQL does none of its bookkeeping).
        UUID orphan = UUID.randomUUID();
        Sql.run(db, "insert into tasks_due (task_id, priority, run_at, type) values (?, 2000, now() - interval '1 hour', "
                + "'noop')", orphan);
        UUID byHand = submit(owner);
        Sql.run(db, "update tasks set priority = 2000 where id = ?", byHand);
        Sql.run(db, "update tasks set status = 'ENQUEUED' where id = ?", byHand);
        UUID waiting = submit(owner);

        List<UUID> first = transitions.enqueueDue(TaskFixtures.fence("storage-stale-" + UUID.randomUUID(), 1), 2);
        assertTrue(!first.contains(orphan) && !first.contains(byHand), "a stale row moved a task: " + first);
        assertEquals(0, Sql.count(db, "select count(*) from tasks_due where task_id in (?, ?)", orphan, byHand),
                "the batch that found the stale rows did not forget them");
        fixtures.enqueue(List.of(waiting));
    }

    private UUID submit(String owner) {
        return transitions.submit(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 2, 0, null, null, null)
                .ownedBy(owner)).task().id();
    }

    private record TaskRow(String status, long dueRows, boolean dueMatches, long inFlightRows, long offPathRows) {
    }

    private TaskRow row(UUID id) {
        List<TaskRow> found = new ArrayList<>();
        Sql.rows(db, "select t.status, (select count(*) from tasks_due d where d.task_id = t.id), "
                + "exists (select 1 from tasks_due d where d.task_id = t.id and d.run_at = t.run_at "
                + "and d.priority = t.priority and d.owner = coalesce(t.owner, '')), "
                + "(select count(*) from tasks_in_flight f where f.task_id = t.id and f.owner = coalesce(t.owner, '')), "
                + "(select count(*) from tasks_off_path o where o.task_id = t.id) from tasks t where t.id = '" + id + "'",
                row -> found.add(new TaskRow(row.getString(1), row.getLong(2), row.getBoolean(3), row.getLong(4),
                        row.getLong(5))));
        return found.getFirst();
    }
}

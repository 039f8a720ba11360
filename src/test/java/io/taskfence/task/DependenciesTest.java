package io.taskfence.task;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.taskfence.task.followup.FollowUps;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.submit.outcome.UnmetDependency;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/**
 * Dependencies (DESIGN.md, "Task lifecycle", "Dependencies"): a task WAITING for others is released (→ PENDING) by
 * the follow-ups job after the last of them ended ("Follow-ups"), exactly once however many end at the same moment and whatever a submission does meanwhile; a dependency that ends DEAD or CANCELLED cancels its waiting
 * dependents (and theirs), or counts as ended for those that run anyway.
 */
@QuarkusTest
@TestServers
class DependenciesTest {

    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(10);

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;
    @Inject
    DataSource db;

    /** The tasks a test released are due: taken off the due order, so that they hold no other test's batch back. */
    @AfterEach
    void enqueueWhatIsDue() {
        fixtures.enqueue(List.of());
    }

    @Test
    void aTaskWaitsForEveryDependencyAndTheLastSuccessReleasesIt() {
        Claim first = fixtures.claimed();
        Claim second = fixtures.claimed();
        UUID dependent = dependent(List.of(first.taskId(), second.taskId()), false);
        assertEquals(TaskStatus.WAITING, status(dependent));
        assertEquals(0, Sql.count(db, "select count(*) from tasks_due where task_id = ?", dependent),
                "a waiting task is not due");

        assertTrue(transitions.complete(first, JsonNodeFactory.instance.objectNode()));
        transitions.followUps();
        assertEquals(TaskStatus.WAITING, status(dependent), "one dependency has not ended yet");
        assertTrue(transitions.complete(second, JsonNodeFactory.instance.objectNode()));
        assertEquals(TaskStatus.WAITING, status(dependent), "released by the follow-ups job, after the end");
        transitions.followUps();
        assertEquals(TaskStatus.PENDING, status(dependent));
        fixtures.enqueue(List.of(dependent));

        assertEquals(List.of("null>WAITING", "WAITING>PENDING", "PENDING>ENQUEUED"), history(dependent));
    }

    /** A → B, A → C, B + C → D: D runs after both B and C have SUCCEEDED, once. */
    @Test
    void aDiamondReleasesItsLastTaskOnceAfterBothBranchesSucceeded() {
        Task a = fixtures.pending();
        UUID b = dependent(List.of(a.id()), false);
        UUID c = dependent(List.of(a.id()), false);
        UUID d = dependent(List.of(b, c), false);

        succeed(a.id());
        assertEquals(List.of(TaskStatus.PENDING, TaskStatus.PENDING, TaskStatus.WAITING), List.of(status(b), status(c), status(d)));
        succeed(b);
        assertEquals(TaskStatus.WAITING, status(d));
        succeed(c);
        assertEquals(TaskStatus.PENDING, status(d));
        assertEquals(1, Sql.count(db, "select count(*) from task_events where task_id = ? and to_status = 'PENDING'", d));
        assertTrue(Sql.count(db, "select count(*) from task_events d, task_events c where d.task_id = ? "
                + "and d.to_status = 'PENDING' and c.task_id = ? and c.to_status = 'SUCCEEDED' and c.at <= d.at", d, c) == 1,
                "D was released by C's success");
    }

    @Test
    void aDependencyEndingDeadCancelsItsDependentsAndTheirDependentsInTurn() {
        Claim failing = fixtures.claimed();
        UUID child = dependent(List.of(failing.taskId()), false);
        UUID grandchild = dependent(List.of(child), false);

        assertEquals(TaskStatus.DEAD, transitions.fail(failing, "broken", true, BASE, CAP).orElseThrow());
        transitions.followUps();

        assertEquals(TaskStatus.CANCELLED, status(child));
        assertEquals("dependency " + failing.taskId() + " ended DEAD", find(child).lastError());
        assertEquals(TaskStatus.CANCELLED, status(grandchild));
        assertEquals("dependency " + child + " ended CANCELLED", find(grandchild).lastError());
        assertEquals(List.of("null>WAITING", "WAITING>CANCELLED"), history(grandchild));
    }

    @Test
    void aDependentThatRunsAnywayIsReleasedOnceItsFailedDependencyHasEnded() {
        Claim failing = fixtures.claimed();
        Claim succeeding = fixtures.claimed();
        UUID dependent = dependent(List.of(failing.taskId(), succeeding.taskId()), true);

        assertEquals(TaskStatus.DEAD, transitions.fail(failing, "broken", true, BASE, CAP).orElseThrow());
        transitions.followUps();
        assertEquals(TaskStatus.WAITING, status(dependent));
        assertTrue(transitions.complete(succeeding, JsonNodeFactory.instance.objectNode()));
        transitions.followUps();
        assertEquals(TaskStatus.PENDING, status(dependent));
        // A second end of the failed one (retried, then done) is not counted again.
        transitions.retry(failing.taskId()).orElseThrow();
        succeed(failing.taskId());
        assertEquals(0, Sql.count(db, "select dependencies_left from tasks where id = ?", dependent));
        assertEquals(1, Sql.count(db, "select count(*) from task_events where task_id = ? and to_status = 'PENDING'",
                dependent));
    }

    @Test
    void cancellingAWaitingTaskOrItsDependencyCancelsIt() {
        Task dependency = fixtures.pending();
        UUID waiting = dependent(List.of(dependency.id()), false);
        UUID other = dependent(List.of(dependency.id()), false);

        assertEquals(TaskStatus.CANCELLED, transitions.cancel(waiting).orElseThrow().status());
        assertEquals(0, Sql.count(db, "select count(*) from tasks_waiting where task_id = ?", waiting));
        transitions.cancel(dependency.id()).orElseThrow();
        transitions.followUps();
        assertEquals(TaskStatus.CANCELLED, status(other));
        assertEquals("dependency " + dependency.id() + " ended CANCELLED", find(other).lastError());
    }

    @Test
    void dependenciesThatHaveEndedAlreadyCountAsEndedAndAFailedOneIsRefusedUnlessTheTaskRunsAnyway() {
        Task done = fixtures.pending();
        succeed(done.id());
        assertEquals(TaskStatus.PENDING, status(dependent(List.of(done.id()), false)), "its only dependency had succeeded");

        Claim failed = fixtures.claimed();
        transitions.fail(failed, "broken", true, BASE, CAP).orElseThrow();
        List<Submitted> refused = transitions.submitAll(List.of(task(List.of(failed.taskId()), false)));
        assertTrue(refused.getFirst() instanceof UnmetDependency unmet && unmet.detail().contains("has ended DEAD"),
                "refused: " + refused);
        assertEquals(TaskStatus.PENDING, status(dependent(List.of(failed.taskId()), true)));
    }

    /** A chain of 1,000 tasks, each waiting for the one before: the head's failure cancels every one of them. */
    @Test
    void aLongChainIsCancelledWholeByItsHeadsFailure() {
        Claim head = fixtures.claimed();
        List<NewTask> chain = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            chain.add(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 1000, null, null, null)
                    .waitingFor(new NewTask.Dependencies(i == 0 ? List.of(head.taskId()) : List.of(),
                            i == 0 ? List.of() : List.of(i - 1), false)));
        }
        List<UUID> ids = transitions.submitAll(chain).stream()
                .map(outcome -> ((Submission) outcome).task().id()).toList();

        assertEquals(TaskStatus.DEAD, transitions.fail(head, "broken", true, BASE, CAP).orElseThrow());
        assertEquals(1000, transitions.followUps().stream().mapToInt(FollowUps.Run::cancelled).sum());

        assertEquals(1000, Sql.count(db, "select count(*) from tasks where id = any(?) and status = 'CANCELLED'",
                (Object) ids.toArray(UUID[]::new)));
        assertEquals(0, Sql.count(db, "select count(*) from tasks_waiting where task_id = any(?)",
                (Object) ids.toArray(UUID[]::new)));
    }

    /** Twenty workers end the twenty dependencies of one task at the same moment, five times over. */
    @Test
    void dependenciesEndingAtTheSameMomentReleaseTheirDependentExactlyOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            List<Claim> claims = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                claims.add(fixtures.claimed());
            }
            UUID dependent = dependent(claims.stream().map(Claim::taskId).toList(), false);

            Race.run(claims.size(), racer -> assertTrue(transitions.complete(claims.get(racer),
                    JsonNodeFactory.instance.objectNode())));
            transitions.followUps();

            assertEquals(TaskStatus.PENDING, status(dependent), "round " + round);
            assertEquals(List.of("null>WAITING", "WAITING>PENDING"), history(dependent), "round " + round);
            assertEquals(0, Sql.count(db, "select dependencies_left from tasks where id = ?", dependent));
            assertBookedAsReleased(dependent);
        }
    }

    /**
     * A dependency ends while a task that depends on it is being submitted: whichever commits first, the dependent
     * is never left WAITING for a task that has ended (the submission locks the dependency's row; the follow-ups job
     * reads the edges after the end committed).
     */
    @Test
    void aDependencyEndingWhileItsDependentIsSubmittedNeverLeavesTheDependentWaiting() throws Exception {
        for (int round = 0; round < 40; round++) {
            Claim running = fixtures.claimed();
            AtomicReference<UUID> dependent = new AtomicReference<>();
            Race.run(2, racer -> {
                if (racer == 0) {
                    dependent.set(dependent(List.of(running.taskId()), false));
                } else {
                    assertTrue(transitions.complete(running, JsonNodeFactory.instance.objectNode()));
                }
            });
            transitions.followUps();
            assertEquals(TaskStatus.PENDING, status(dependent.get()), "round " + round);
            assertBookedAsReleased(dependent.get());
        }
    }

    @Test
    void theApiTakesDependenciesOfTheKeysOwnTasksOnlyAndListsWaitingTasks() {
        String dependency = submit("{\"type\":\"noop\",\"payload\":{},\"runAt\":\"2999-01-01T00:00:00Z\"}",
                ApiKeysForTests.SUBMIT_KEY).statusCode(201).extract().path("id");
        String waiting = submit("{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + dependency + "\"]}",
                ApiKeysForTests.SUBMIT_KEY).statusCode(201).body("status", equalTo("WAITING"))
                .body("dependsOn", equalTo(List.of(dependency))).extract().path("id");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + waiting).then()
                .body("dependsOn", equalTo(List.of(dependency)));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + dependency).then()
                .body("$", not(hasKey("dependsOn")));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("status", "WAITING").get("/api/v1/tasks").then()
                .statusCode(200).body("items.id", hasItem(waiting));

        submit("{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + dependency + "\"]}", ApiKeysForTests.OTHER_SUBMIT_KEY)
                .statusCode(422).contentType("application/problem+json").body("field", equalTo("dependsOn"))
                .body("detail", containsString("dependsOn names task " + dependency + ", which API key '"
                        + ApiKeysForTests.OTHER_SUBMIT_KEY_NAME + "' does not have"));
        UUID unknown = UUID.randomUUID();
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"tasks\":[{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + unknown + "\"]},"
                        + "{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + dependency + "\"],\"onDependencyFailure\":\"run\"}]}")
                .post("/api/v1/tasks/batch").then().statusCode(200)
                .body("items[0].status", equalTo(422)).body("items[0].problem.field", equalTo("tasks[0].dependsOn"))
                .body("items[1].status", equalTo(201)).body("items[1].task.status", equalTo("WAITING"));
        submit("{\"type\":\"noop\",\"payload\":{},\"onDependencyFailure\":\"later\"}", ApiKeysForTests.SUBMIT_KEY)
                .statusCode(400).body("violations[0].field", equalTo("onDependencyFailure"));

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + dependency + "/cancel").then()
                .statusCode(200);
        transitions.followUps();
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + waiting).then()
                .body("status", equalTo("CANCELLED"));
    }

    /** A → B, A → C, B + C → D in one batch, the items naming each other by place. */
    @Test
    void aDiamondSubmittedInOneBatchRunsInItsOrder() {
        List<UUID> ids = batchIds("{\"tasks\":[" + noop("") + "," + noop(",\"dependsOnItems\":[0]") + ","
                + noop(",\"dependsOnItems\":[0]") + "," + noop(",\"dependsOnItems\":[1,2]") + "]}", 201, 201, 201, 201);
        assertEquals(List.of(TaskStatus.PENDING, TaskStatus.WAITING, TaskStatus.WAITING, TaskStatus.WAITING),
                ids.stream().map(this::status).toList());
        assertEquals(4, Sql.count(db, "select count(*) from task_dependencies where task_id = any(?)",
                (Object) ids.toArray(UUID[]::new)));
        succeed(ids.get(0));
        succeed(ids.get(1));
        assertEquals(TaskStatus.WAITING, status(ids.get(3)));
        succeed(ids.get(2));
        assertEquals(TaskStatus.PENDING, status(ids.get(3)));
    }

    @Test
    void aBatchsCycleAndTheItemsWaitingForARefusedOneAreRefusedAndTheOthersStored() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"tasks\":[" + noop(",\"dependsOnItems\":[1]") + "," + noop(",\"dependsOnItems\":[0]") + ","
                        + noop(",\"dependsOnItems\":[1]") + ",{\"type\":\"no-such-type\",\"payload\":{}},"
                        + noop(",\"dependsOnItems\":[3]") + "," + noop(",\"dependsOnItems\":[9]") + "," + noop("") + "]}")
                .post("/api/v1/tasks/batch").then().statusCode(200)
                .body("items[0].status", equalTo(422)).body("items[0].problem.detail", containsString("makes a cycle"))
                .body("items[1].status", equalTo(422)).body("items[1].problem.detail", containsString("makes a cycle"))
                .body("items[2].status", equalTo(422))
                .body("items[2].problem.detail", equalTo("dependsOnItems names tasks[1], which was refused"))
                .body("items[3].status", equalTo(422))
                .body("items[4].status", equalTo(422))
                .body("items[4].problem.detail", equalTo("dependsOnItems names tasks[3], which was refused"))
                .body("items[5].status", equalTo(400))
                .body("items[5].problem.violations[0].field", equalTo("tasks[5].dependsOnItems"))
                .body("items[6].status", equalTo(201)).body("items[6].task.status", equalTo("PENDING"));
    }

    /**
     * A batch sent again with its idempotency keys answers the tasks it made and adds no edge; an item whose key made
     * a task before is waited for as that task; one whose key names another request refuses the items waiting for it.
     */
    @Test
    void itemsWhoseKeysMadeTasksAlreadyAreWaitedForAsThoseTasks() {
        String key = "deps-" + UUID.randomUUID();
        String batch = "{\"tasks\":[" + noop(",\"idempotencyKey\":\"" + key + "-a\"") + ","
                + noop(",\"idempotencyKey\":\"" + key + "-b\",\"dependsOnItems\":[0]") + "]}";
        List<UUID> first = batchIds(batch, 201, 201);
        long edges = Sql.count(db, "select count(*) from task_dependencies");
        assertEquals(first, batchIds(batch, 200, 200), "the same tasks");
        assertEquals(edges, Sql.count(db, "select count(*) from task_dependencies"), "no edge added");

        List<UUID> mixed = batchIds("{\"tasks\":[" + noop(",\"idempotencyKey\":\"" + key + "-a\"") + ","
                + noop(",\"dependsOnItems\":[0]") + "]}", 200, 201);
        assertEquals(first.get(0), mixed.get(0));
        assertEquals(TaskStatus.WAITING, status(mixed.get(1)));
        assertEquals(first.get(0).toString(), Sql.value(db, "select depends_on::text from task_dependencies where task_id = ?",
                mixed.get(1)));

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"tasks\":[{\"type\":\"noop\",\"payload\":{\"other\":1},\"idempotencyKey\":\"" + key + "-a\"},"
                        + noop(",\"dependsOnItems\":[0]") + "]}")
                .post("/api/v1/tasks/batch").then().statusCode(200)
                .body("items[0].status", equalTo(422)).body("items[0].problem.field", equalTo("tasks[0].idempotencyKey"))
                .body("items[1].status", equalTo(422)).body("items[1].problem.field", equalTo("tasks[1].dependsOn"));
    }

    // ---- plumbing

    private static NewTask task(List<UUID> dependsOn, boolean runIfOneFails) {
        return new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 1000, null, null, null)
                .waitingFor(new NewTask.Dependencies(dependsOn, runIfOneFails));
    }

    /**
     * The statement that ends a task does not touch its dependents (DESIGN.md, "Follow-ups"): a worker's success batch
     * lands while another session holds both its tasks' WAITING dependents locked, and a submission waiting for those
     * dependents lands beside it; the follow-ups job then releases each dependent once. Before, the batch's trigger
     * waited for those locks, and met the submission's in opposite orders (a deadlock).
     */
    @Test
    void aSuccessBatchLandsWhileItsDependentsAreLockedAndTheirReleaseFollows() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Claim> batch = List.of(fixtures.claimed(), fixtures.claimed());
            UUID d1 = dependent(List.of(batch.get(0).taskId()), false);
            UUID d2 = dependent(List.of(batch.get(1).taskId()), false);
            UUID submitted;
            try (RowHolder holdsD1 = RowHolder.lock(db, d1); RowHolder holdsD2 = RowHolder.lock(db, d2)) {
                Future<Set<String>> ended = threads.submit(() -> transitions.complete(completions(batch)));
                assertEquals(2, ended.get(60, TimeUnit.SECONDS).size(), "the success batch landed under the locks");
                assertTrue(!holdsD1.blocksAnother() && !holdsD2.blocksAnother());
                Future<UUID> waiting = threads.submit(() -> dependent(List.of(d1, d2), false));
                await("the submission waits for the holders").atMost(Duration.ofSeconds(30))
                        .until(() -> holdsD1.blocksAnother() || holdsD2.blocksAnother());
                holdsD1.release();
                holdsD2.release();
                submitted = waiting.get(60, TimeUnit.SECONDS);
            }
            assertEquals(List.of(TaskStatus.WAITING, TaskStatus.WAITING), List.of(status(d1), status(d2)));
            transitions.followUps();
            for (UUID dependent : List.of(d1, d2)) {
                assertEquals(List.of("null>WAITING", "WAITING>PENDING"), history(dependent), "released once");
                assertBookedAsReleased(dependent);
            }
            assertEquals(TaskStatus.WAITING, status(submitted), "the submission landed, waiting for both");
            assertEquals(2, Sql.count(db, "select dependencies_left from tasks where id = ?", submitted));
            assertEquals(0, Sql.count(db, "select count(*) from task_follow_ups where task_id = any(?)",
                    (Object) batch.stream().map(Claim::taskId).toArray(UUID[]::new)), "the follow-ups are gone");
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * A task with 2,500 dependents is walked in chunks of at most {@link FollowUps#DEPENDENTS_AT_ONCE}, and another
     * task that ended after it has its dependent released in the first chunk, not after the whole fan-in.
     */
    @Test
    void aLargeFanInIsWalkedInBoundedChunksAndHoldsNoOtherTasksDependentsBack() {
        Claim wide = fixtures.claimed();
        Claim narrow = fixtures.claimed();
        List<UUID> fanIn = new ArrayList<>();
        for (int chunk = 0; chunk < 5; chunk++) {
            fanIn.addAll(transitions.submitAll(Collections.nCopies(500, task(List.of(wide.taskId()), false)))
                    .stream().map(outcome -> ((Submission) outcome).task().id()).toList());
        }
        UUID single = dependent(List.of(narrow.taskId()), false);
        assertTrue(transitions.complete(wide, JsonNodeFactory.instance.objectNode()));
        assertTrue(transitions.complete(narrow, JsonNodeFactory.instance.objectNode()));

        List<FollowUps.Run> runs = transitions.followUps();

        assertEquals(TaskStatus.PENDING, status(single));
        assertTrue(runs.size() >= 3, "runs: " + runs);
        assertTrue(runs.stream().allMatch(run -> run.released() <= FollowUps.DEPENDENTS_AT_ONCE), "runs: " + runs);
        assertTrue(runs.getFirst().released() > 1, "the first chunk released the narrow one's and a share of the wide "
                + "one's: " + runs);
        assertEquals(2501, runs.stream().mapToInt(FollowUps.Run::released).sum());
        assertEquals(2500, Sql.count(db, "select count(*) from tasks where id = any(?) and status = 'PENDING'",
                (Object) fanIn.toArray(UUID[]::new)));
        Object[] ids = fanIn.toArray(UUID[]::new);
        assertEquals(2500, Sql.count(db, "select count(*) from tasks_due where task_id = any(?)", (Object) ids));
        assertEquals(0, Sql.count(db, "select count(*) from tasks_waiting where task_id = any(?)", (Object) ids));
        assertEquals(0, Sql.count(db, "select count(*) from task_dependencies where task_id = any(?) and not resolved",
                (Object) ids));
    }

    private static List<Completion> completions(List<Claim> claims) {
        return claims.stream().map(claim -> new Completion(claim, JsonNodeFactory.instance.objectNode())).toList();
    }

    /** A session of the test's holding one task's row lock in an open transaction until released. */
    private record RowHolder(DataSource db, Connection connection, int pid) implements AutoCloseable {

        static RowHolder lock(DataSource db, UUID task) throws SQLException {
            Connection connection = db.getConnection();
            connection.setAutoCommit(false);
            try (PreparedStatement unbounded = connection.prepareStatement(
                    "set local idle_in_transaction_session_timeout = 0")) {
                unbounded.execute(); // the pool's 10 s would end the test's hold on a slow machine
            }
            try (PreparedStatement lock = connection.prepareStatement(
                    "select pg_backend_pid() from tasks where id = ? for update")) {
                lock.setObject(1, task);
                try (ResultSet row = lock.executeQuery()) {
                    row.next();
                    return new RowHolder(db, connection, row.getInt(1));
                }
            }
        }

        boolean blocksAnother() {
            return Sql.count(db, "select count(*) from pg_stat_activity where ? = any(pg_blocking_pids(pid))", pid) > 0;
        }

        void release() throws SQLException {
            connection.rollback();
        }

        @Override
        public void close() throws SQLException {
            connection.rollback();
            connection.close();
        }
    }

    private UUID dependent(List<UUID> dependsOn, boolean runIfOneFails) {
        return transitions.submit(task(dependsOn, runIfOneFails)).task().id();
    }

    /**
     * Runs a PENDING task to SUCCEEDED (enqueueing it may have enqueued other due tasks of the test's), and does the
     * follow-ups its end left.
     */
    private void succeed(UUID pending) {
        if (status(pending) == TaskStatus.PENDING) {
            fixtures.enqueue(List.of(pending));
        }
        Claim claim = transitions.claim(pending, "dependencies-test", TaskFixtures.LEASE).orElseThrow();
        assertTrue(transitions.complete(claim, JsonNodeFactory.instance.objectNode()));
        transitions.followUps();
    }

    /** A released task's side rows: due once, waiting no more, every edge resolved. */
    private void assertBookedAsReleased(UUID id) {
        assertEquals(1, Sql.count(db, "select count(*) from tasks_due where task_id = ?", id), "due once");
        assertEquals(0, Sql.count(db, "select count(*) from tasks_waiting where task_id = ?", id), "waiting no more");
        assertEquals(0, Sql.count(db, "select count(*) from task_dependencies where task_id = ? and not resolved", id),
                "every edge resolved");
    }

    private Task find(UUID id) {
        return queries.find(id).orElseThrow();
    }

    private TaskStatus status(UUID id) {
        return find(id).status();
    }

    /** The task's transitions, oldest first, as {@code from>to}. */
    private List<String> history(UUID id) {
        List<String> moves = new ArrayList<>();
        Sql.rows(db, "select from_status, to_status from task_events where task_id = '" + id + "' order by id",
                row -> moves.add(row.getString(1) + ">" + row.getString(2)));
        return moves;
    }

    private static String noop(String more) {
        return "{\"type\":\"noop\",\"payload\":{}" + more + "}";
    }

    /** Submits a batch, expecting each item's status; the ids of its tasks. */
    private static List<UUID> batchIds(String batch, int... statuses) {
        List<Integer> answered = new ArrayList<>();
        List<UUID> ids = new ArrayList<>();
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(batch)
                .post("/api/v1/tasks/batch").then().statusCode(200).extract().jsonPath().getList("items", Map.class)
                .forEach(item -> {
                    answered.add((Integer) item.get("status"));
                    Object task = item.get("task");
                    ids.add(task == null ? null : UUID.fromString((String) ((Map<?, ?>) task).get("id")));
                });
        assertEquals(Arrays.stream(statuses).boxed().toList(), answered, "the items' statuses");
        return ids;
    }

    private static ValidatableResponse submit(String body, String key) {
        return given().auth().oauth2(key).contentType("application/json").body(body).post("/api/v1/tasks").then();
    }
}

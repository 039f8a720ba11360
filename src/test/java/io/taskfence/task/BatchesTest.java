package io.taskfence.task;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.taskfence.store.FenceToken;
import io.taskfence.task.batch.BatchCompletions;
import io.taskfence.task.submit.BatchPlan;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.Submissions;
import io.taskfence.task.submit.outcome.SubmittedBatch;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/**
 * Batches (DESIGN.md, "Batches"): a batch's then task waits until every task of the closed batch has ended, then is
 * released once with the batch's outcome in its payload, however many items end at once and whatever the fold runs
 * meanwhile; a batch stays open for more requests while asked to, and a closed one takes no task.
 */
@QuarkusTest
@TestServers
class BatchesTest {

    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(10);
    private static final String THEN = "{\"type\":\"noop\",\"payload\":{\"report\":\"nightly\"}}";

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskFixtures fixtures;
    @Inject
    TaskQueries queries;
    @Inject
    Submissions submissions;
    @Inject
    BatchCompletions completions;
    @Inject
    ObjectMapper json;
    @Inject
    DataSource db;

    /** The fold's fence: the batches job's lock in this test's run of its own. */
    private final FenceToken fence = TaskFixtures.fence("batches-test-" + UUID.randomUUID(), 1);

    /** The tasks a test released are due: taken off the due order, so that they hold no other test's batch back. */
    @AfterEach
    void enqueueWhatIsDue() {
        fixtures.enqueue(List.of());
    }

    @Test
    void theThenTaskRunsOnceAfterEveryItemEndedWithTheOutcomeInItsPayload() throws Exception {
        ValidatableResponse answer = batch("{\"tasks\":[" + noops(5) + "],\"then\":" + THEN + "}").statusCode(200)
                .body("created", equalTo(5)).body("batch.status", equalTo("CLOSED")).body("batch.items", equalTo(5))
                .body("batch.unfinished", equalTo(5)).body("batch.thenStatus", equalTo("WAITING"));
        String batch = answer.extract().path("batch.id");
        UUID then = UUID.fromString(answer.extract().path("batch.thenTaskId"));
        List<UUID> items = answer.extract().<List<String>>path("items.task.id").stream().map(UUID::fromString).toList();
        answer.body("items[0].task.batchId", equalTo(batch));
        fixtures.enqueue(items);
        List<Claim> claims = items.stream().map(this::claim).toList();

        assertTrue(transitions.complete(claims.get(0), JsonNodeFactory.instance.objectNode()));
        assertTrue(transitions.complete(claims.get(1), JsonNodeFactory.instance.objectNode()));
        assertEquals(TaskStatus.DEAD, transitions.fail(claims.get(2), "broken", true, BASE, CAP).orElseThrow());
        transitions.cancel(items.get(3)).orElseThrow();
        // Exact before the fold, as after it.
        getBatch(batch).body("succeeded", equalTo(2)).body("dead", equalTo(1)).body("cancelled", equalTo(1))
                .body("unfinished", equalTo(1));
        assertEquals(0, completions.foldAndComplete(fence, 10_000).completed());
        assertEquals(TaskStatus.WAITING, status(then), "one task of the batch is still running");
        getBatch(batch).body("status", equalTo("CLOSED")).body("unfinished", equalTo(1)).body("succeeded", equalTo(2));

        assertTrue(transitions.complete(claims.get(4), JsonNodeFactory.instance.objectNode()));
        assertEquals(new BatchCompletions.Run(1, 1, 1), completions.foldAndComplete(fence, 10_000));
        assertEquals(new BatchCompletions.Run(0, 0, 0), completions.foldAndComplete(fence, 10_000),
                "a batch completes once");

        Task released = queries.find(then).orElseThrow();
        assertEquals(TaskStatus.PENDING, released.status());
        assertEquals("nightly", released.payload().get("report").asText(), "the then task's own payload is kept");
        List<String> failed = List.of(items.get(2).toString(), items.get(3).toString()).stream().sorted().toList();
        assertEquals(json.readTree("{\"id\":\"" + batch + "\",\"items\":5,\"succeeded\":3,\"dead\":1,\"cancelled\":1,"
                + "\"failed\":" + json.writeValueAsString(failed) + "}"), released.payload().get("batch"));
        assertEquals(List.of("null>WAITING", "WAITING>PENDING"), history(then));
        getBatch(batch).body("status", equalTo("COMPLETE")).body("unfinished", equalTo(0)).body("succeeded", equalTo(3))
                .body("thenStatus", equalTo("PENDING")).body("$", hasKey("completedAt"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("batch", batch).queryParam("status", "DEAD")
                .get("/api/v1/tasks").then().statusCode(200).body("items.id", equalTo(List.of(items.get(2).toString())));
    }

    /**
     * Two hundred items end on twenty threads while the fold runs over and over beside them: the then task is released
     * once, after the last, with every item counted once.
     */
    @Test
    void itemsEndingOnManyThreadsWhileTheFoldRunsCompleteTheBatchOnce() throws Exception {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            tasks.add(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 5, 1000, null, null, null));
        }
        SubmittedBatch made = submissions.submitAll(tasks, new BatchPlan.NewBatch(
                new NewTask("noop", JsonNodeFactory.instance.objectNode(), 5, 0, null, null, null), false));
        List<UUID> items = made.items().stream().map(item -> ((Submission) item).task().id()).toList();
        UUID then = thenOf(made.batchId());
        fixtures.enqueue(items);
        List<Claim> claims = items.stream().map(this::claim).toList();

        AtomicBoolean ending = new AtomicBoolean(true);
        List<BatchCompletions.Run> runs = new ArrayList<>();
        Race.run(21, racer -> {
            if (racer == 20) {
                while (ending.get()) {
                    runs.add(completions.foldAndComplete(fence, 50));
                }
                return;
            }
            for (int i = racer; i < claims.size(); i += 20) {
                assertTrue(transitions.complete(claims.get(i), JsonNodeFactory.instance.objectNode()));
            }
            if (Sql.count(db, "select count(*) from tasks where batch_id = ? and status <> 'SUCCEEDED'", made.batchId()) == 0) {
                ending.set(false);
            }
        });
        runs.add(completions.foldAndComplete(fence, 10_000));

        assertEquals(1, runs.stream().mapToInt(BatchCompletions.Run::released).sum(), runs::toString);
        assertEquals(200, runs.stream().mapToInt(BatchCompletions.Run::endsFolded).sum());
        assertEquals(List.of("null>WAITING", "WAITING>PENDING"), history(then));
        JsonNode outcome = queries.find(then).orElseThrow().payload().get("batch");
        assertEquals(200, outcome.get("succeeded").asInt());
        assertEquals(0, outcome.get("failed").size());
        assertEquals(0, Sql.count(db, "select count(*) from batch_item_ends where batch_id = ?", made.batchId()));
    }

    /** A batch made over several requests: open while they say so, completed only once closed. */
    @Test
    void anOpenBatchTakesMoreRequestsAndCompletesOnlyOnceClosed() {
        String batch = batch("{\"tasks\":[" + noops(2) + "],\"then\":" + THEN + ",\"open\":true}").statusCode(200)
                .body("batch.status", equalTo("OPEN")).extract().path("batch.id");
        batch("{\"tasks\":[" + noops(2) + "],\"batchId\":\"" + batch + "\",\"open\":true}").statusCode(200)
                .body("batch.id", equalTo(batch)).body("batch.items", equalTo(4)).body("batch.status", equalTo("OPEN"));
        List<UUID> items = itemsOf(batch);
        assertEquals(4, items.size());
        fixtures.enqueue(items);
        items.stream().map(this::claim).forEach(claim -> transitions.complete(claim, JsonNodeFactory.instance.objectNode()));
        completions.foldAndComplete(fence, 10_000);
        getBatch(batch).body("status", equalTo("OPEN")).body("unfinished", equalTo(0)).body("thenStatus", equalTo("WAITING"));

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/batches/" + batch + "/close").then().statusCode(200)
                .body("status", equalTo("CLOSED")).body("$", hasKey("closedAt"));
        completions.foldAndComplete(fence, 10_000);
        getBatch(batch).body("status", equalTo("COMPLETE")).body("thenStatus", equalTo("PENDING"));

        batch("{\"tasks\":[" + noops(1) + "],\"batchId\":\"" + batch + "\"}").statusCode(409)
                .contentType("application/problem+json").body("detail", containsString("batch " + batch + " is closed"));
        assertEquals(4, itemsOf(batch).size(), "nothing of a refused request is stored");
        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).get("/api/v1/batches/" + batch).then().statusCode(404);
        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).contentType("application/json")
                .body("{\"tasks\":[" + noops(1) + "],\"batchId\":\"" + batch + "\"}").post("/api/v1/tasks/batch").then()
                .statusCode(422).body("field", equalTo("batchId")).body("detail", containsString("does not have"));
    }

    /** The same request sent again with the then task's idempotency key joins the batch it made, adding nothing. */
    @Test
    void aBatchSentAgainWithItsKeysIsTheSameBatch() {
        String key = "then-" + UUID.randomUUID();
        String request = "{\"tasks\":[{\"type\":\"noop\",\"payload\":{},\"idempotencyKey\":\"" + key + "-0\"}],"
                + "\"then\":{\"type\":\"noop\",\"payload\":{},\"idempotencyKey\":\"" + key + "\"}}";
        String batch = batch(request).statusCode(200).body("created", equalTo(1)).extract().path("batch.id");
        batch(request).statusCode(200).body("existing", equalTo(1)).body("batch.id", equalTo(batch))
                .body("batch.items", equalTo(1));
        assertEquals(1, Sql.count(db, "select count(*) from batches where id = ?", UUID.fromString(batch)));

        String used = "used-" + UUID.randomUUID();
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").header("Idempotency-Key", used)
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201);
        batch("{\"tasks\":[" + noops(1) + "],\"then\":{\"type\":\"noop\",\"payload\":{},\"idempotencyKey\":\"" + used
                + "\"}}").statusCode(422).body("field", equalTo("then.idempotencyKey"));
    }

    /** A DEAD item retried before the batch completes counts again as unfinished; its success then completes it. */
    @Test
    void aDeadItemRetriedBeforeTheBatchCompletesIsWaitedForAgain() {
        ValidatableResponse answer = batch("{\"tasks\":[" + noops(1) + "],\"then\":" + THEN + "}").statusCode(200);
        String batch = answer.extract().path("batch.id");
        UUID item = UUID.fromString(answer.extract().path("items[0].task.id"));
        fixtures.enqueue(List.of(item));
        assertEquals(TaskStatus.DEAD, transitions.fail(claim(item), "broken", true, BASE, CAP).orElseThrow());
        transitions.retry(item).orElseThrow();
        completions.foldAndComplete(fence, 10_000);
        getBatch(batch).body("status", equalTo("CLOSED")).body("dead", equalTo(0)).body("unfinished", equalTo(1));

        fixtures.enqueue(List.of(item));
        transitions.complete(claim(item), JsonNodeFactory.instance.objectNode());
        completions.foldAndComplete(fence, 10_000);
        getBatch(batch).body("status", equalTo("COMPLETE")).body("succeeded", equalTo(1)).body("dead", equalTo(0));
    }

    /** Cancelled while it waits, the then task is not run by the batch, and may be retried only once it is complete. */
    @Test
    void aThenTaskCancelledWhileItWaitsIsRetriedOnlyOnceItsBatchIsCompleteAndThenHasTheOutcome() {
        ValidatableResponse answer = batch("{\"tasks\":[" + noops(1) + "],\"then\":" + THEN + "}").statusCode(200);
        String batch = answer.extract().path("batch.id");
        String then = answer.extract().path("batch.thenTaskId");
        UUID item = UUID.fromString(answer.extract().path("items[0].task.id"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + then + "/cancel").then().statusCode(200);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + then + "/retry").then().statusCode(409)
                .body("detail", containsString("it is the then task of batch " + batch + ", which has not completed"));

        fixtures.enqueue(List.of(item));
        assertTrue(transitions.complete(claim(item), JsonNodeFactory.instance.objectNode()));
        assertEquals(new BatchCompletions.Run(1, 1, 0), completions.foldAndComplete(fence, 10_000));
        Task cancelled = queries.find(UUID.fromString(then)).orElseThrow();
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertEquals(1, cancelled.payload().path("batch").path("succeeded").asInt(), "the outcome is there for a retry");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + then + "/retry").then().statusCode(200)
                .body("status", equalTo("PENDING"));
    }

    /**
     * A task that joins a batch cannot wait for the batch's then task, which waits for it: 422, and the other tasks of
     * the request are stored. A task outside the batch may wait for it, as for any task: it runs after the then task.
     */
    @Test
    void aTaskOfABatchThatWaitsForItsThenTaskIsRefused() {
        ValidatableResponse made = batch("{\"tasks\":[" + noops(1) + "],\"then\":" + THEN + ",\"open\":true}")
                .statusCode(200);
        String batch = made.extract().path("batch.id");
        String then = made.extract().path("batch.thenTaskId");

        batch("{\"tasks\":[" + noops(1) + ",{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + then + "\"]}],"
                + "\"batchId\":\"" + batch + "\"}").statusCode(200).body("created", equalTo(1))
                .body("refused", equalTo(1)).body("items[1].status", equalTo(422))
                .body("items[1].problem.field", equalTo("tasks[1].dependsOn"))
                .body("items[1].problem.detail", containsString("tasks[1]: dependsOn names task " + then
                        + ", the then task of the batch this task joins"))
                .body("batch.items", equalTo(2)).body("batch.status", equalTo("CLOSED"));
        assertEquals(2, itemsOf(batch).size(), "the refused task is not stored");

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + then + "\"]}").post("/api/v1/tasks").then()
                .statusCode(201).body("status", equalTo("WAITING"));
    }

    /** Another key's then task is as unknown to a retry as any of its tasks: 404, not a 409 that names its batch. */
    @Test
    void anotherKeysThenTaskIsNotFoundToARetry() {
        ValidatableResponse answer = batch("{\"tasks\":[" + noops(1) + "],\"then\":" + THEN + "}").statusCode(200);
        String batch = answer.extract().path("batch.id");
        String then = answer.extract().path("batch.thenTaskId");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + then + "/cancel").then().statusCode(200);

        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).post("/api/v1/tasks/" + then + "/retry").then()
                .statusCode(404).contentType("application/problem+json")
                .body("detail", equalTo("no task with id '" + then + "'")).body("detail", not(containsString(batch)));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + then + "/retry").then().statusCode(409)
                .body("detail", containsString("it is the then task of batch " + batch));
        assertEquals(TaskStatus.CANCELLED, status(UUID.fromString(then)), "neither retry moved it");
    }

    /** A request whose every task is refused by the database's checks makes no batch, nor a then task. */
    @Test
    void aRequestThatStoresNoTaskMakesNoBatch() {
        long before = Sql.count(db, "select count(*) from batches");
        batch("{\"tasks\":[{\"type\":\"noop\",\"payload\":{},\"dependsOn\":[\"" + UUID.randomUUID() + "\"]}],"
                + "\"then\":" + THEN + "}").statusCode(200).body("refused", equalTo(1)).body("$", not(hasKey("batch")));
        assertEquals(before, Sql.count(db, "select count(*) from batches"));
    }

    @Test
    void badBatchRequestsAreRefusedWithTheirFieldAndStoreNothing() {
        long before = Sql.count(db, "select count(*) from batches");
        batch("{\"tasks\":[" + noops(1) + "],\"then\":{\"type\":\"noop\",\"payload\":{\"batch\":1}}}").statusCode(400)
                .contentType("application/problem+json").body("field", equalTo("then.payload"));
        batch("{\"tasks\":[" + noops(1) + "],\"then\":{\"type\":\"noop\",\"payload\":{},\"dependsOnItems\":[0]}}")
                .statusCode(400).body("field", equalTo("then"));
        batch("{\"tasks\":[" + noops(1) + "],\"then\":{\"type\":\"no-such-type\",\"payload\":{}}}").statusCode(422)
                .body("field", equalTo("then.type"));
        batch("{\"tasks\":[" + noops(1) + "],\"open\":true}").statusCode(400).body("field", equalTo("open"));
        batch("{\"tasks\":[" + noops(1) + "],\"then\":" + THEN + ",\"batchId\":\"" + UUID.randomUUID() + "\"}")
                .statusCode(400).body("field", equalTo("batchId"));
        batch("{\"tasks\":[" + noops(1) + "],\"batchId\":\"" + UUID.randomUUID() + "\"}").statusCode(422)
                .body("field", equalTo("batchId"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/batches/not-a-uuid").then().statusCode(404);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("batch", "nope").get("/api/v1/tasks").then()
                .statusCode(400).body("violations[0].field", equalTo("batch"));
        assertEquals(before, Sql.count(db, "select count(*) from batches"));
    }

    private Claim claim(UUID id) {
        return transitions.claim(id, "batches-test-" + UUID.randomUUID(), TaskFixtures.LEASE).orElseThrow();
    }

    private TaskStatus status(UUID id) {
        return queries.find(id).orElseThrow().status();
    }

    /** The task's transitions, oldest first, as {@code from>to}. */
    private List<String> history(UUID id) {
        List<String> moves = new ArrayList<>();
        Sql.rows(db, "select from_status, to_status from task_events where task_id = '" + id + "' order by id",
                row -> moves.add(row.getString(1) + ">" + row.getString(2)));
        return moves;
    }

    private UUID thenOf(UUID batch) {
        return UUID.fromString(Sql.value(db, "select then_task_id from batches where id = ?", batch));
    }

    private List<UUID> itemsOf(String batch) {
        List<UUID> items = new ArrayList<>();
        Sql.rows(db, "select id from tasks where batch_id = '" + UUID.fromString(batch) + "'",
                row -> items.add(row.getObject(1, UUID.class)));
        return items;
    }

    private static String noops(int count) {
        List<String> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add("{\"type\":\"noop\",\"payload\":{}}");
        }
        return String.join(",", tasks);
    }

    private static ValidatableResponse batch(String body) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(body)
                .post("/api/v1/tasks/batch").then();
    }

    private static ValidatableResponse getBatch(String id) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/batches/" + id).then().statusCode(200);
    }
}

package io.taskfence.api.tasks;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * {@code POST /api/v1/tasks/batch}: every task gets what a single submission of it would have got, in the
 * request's order, in one answer; refused tasks store nothing, the others are stored, and idempotency keys
 * hold within a batch, across batches and under concurrent batches.
 */
@QuarkusTest
@TestServers
class BulkSubmitTest {

    private static final String BATCH = "/api/v1/tasks/batch";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern NOOP_CREATED = Pattern.compile(
            "(?m)^taskfence_transitions_total\\{[^}]*to=\"PENDING\",type=\"noop\"[^}]*} (\\S+)$");

    @TestHTTPResource(value = "/", management = true)
    URI management;
    @Inject
    DataSource db;

    @Test
    void aMixedBatchAnswersEveryTaskInOrderAndStoresOnlyTheAcceptedOnes() {
        String kept = "kept-" + UUID.randomUUID();
        String reused = "reused-" + UUID.randomUUID();
        String inBatch = "in-batch-" + UUID.randomUUID();
        String keptId = single("{\"type\":\"noop\",\"payload\":{\"n\":5}}", kept);
        String reusedId = single("{\"type\":\"noop\",\"payload\":{\"n\":6}}", reused);

        ArrayNode tasks = JSON.createArrayNode();
        tasks.add(task("noop", "{\"n\":0}"));                                          // 0: 201
        tasks.add(task("no-such-type", "{}"));                                         // 1: 422 unknown type
        tasks.add(task("sleep", "{\"ms\":-1}"));                                       // 2: 422 the handler's problem
        tasks.add(task("noop", "{\"x\":\"" + "x".repeat(70 * 1024) + "\"}"));          // 3: 413 payload over 64 KiB
        tasks.add(task("noop", "{}").put("priority", 5000));                           // 4: 400 Bean Validation
        tasks.add(task("noop", "{\"n\":5}").put("idempotencyKey", kept));              // 5: 200 an earlier task
        tasks.add(task("noop", "{\"n\":\"other\"}").put("idempotencyKey", reused));    // 6: 422 key reused
        tasks.add(task("noop", "{\"n\":7}").put("idempotencyKey", inBatch));           // 7: 201
        tasks.add(task("noop", "{\"n\":7}").put("idempotencyKey", inBatch));           // 8: 200, task 7's
        tasks.add(task("noop", "{\"n\":9}").put("idempotencyKey", inBatch));           // 9: 422, task 7's key
        tasks.add(task("noop", "[1]"));                                                // 10: 400 not an object
        tasks.add(task("noop", "{}").put("runAt", "2030-01-02T00:00:00Z").put("deadline", "2030-01-01T00:00:00Z")); // 11
        tasks.addNull();                                                               // 12: 400 not a task
        tasks.add(task("noop", "{}").put("idempotencyKey", "k".repeat(201)));          // 13: 400 bad key
        tasks.add(task("noop", "{\"n\":14}").put("maxAttempts", 3).put("priority", 7)
                .put("runAt", "2030-01-02T00:00:00Z").put("deadline", "2030-01-03T00:00:00Z")); // 14: 201, as given
        tasks.add(task("Bad Type", "{}").put("maxAttempts", 0));                       // 15: 400, both fields

        long tasksBefore = tasks();
        double countedBefore = countedNoopSubmissions();
        JsonPath answer = batch(ApiKeysForTests.SUBMIT_KEY, batchOf(tasks)).then().statusCode(200)
                .contentType("application/json").extract().jsonPath();

        assertEquals(List.of(201, 422, 422, 413, 400, 200, 422, 201, 200, 422, 400, 400, 400, 400, 201, 400),
                answer.getList("items.status"));
        List<Integer> indexes = answer.getList("items.index");
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), indexes);
        assertEquals(3, answer.getInt("created"));
        assertEquals(2, answer.getInt("existing"));
        assertEquals(11, answer.getInt("refused"));

        assertEquals(0, answer.getInt("items[0].task.payload.n"));
        assertEquals("PENDING", answer.getString("items[0].task.status"));
        assertProblem(answer, 1, 422, "no handler for task type 'no-such-type'; registered types: ");
        assertProblem(answer, 2, 422, "payload of a 'sleep' task: payload.ms must be a whole number");
        assertProblem(answer, 3, 413, "bytes of JSON; at most 65536 are accepted");
        assertProblem(answer, 4, 400, "tasks[4].priority: must be less than or equal to 1000");
        assertEquals(List.of("tasks[4].priority"), answer.getList("items[4].problem.violations.field"));
        assertEquals(List.of("body"), answer.getList("items[4].problem.violations.in"));
        assertEquals(keptId, answer.getString("items[5].task.id"));
        assertProblem(answer, 6, 422, "idempotencyKey '" + reused + "' was already used for a different request (task "
                + reusedId + ")");
        String inBatchId = answer.getString("items[7].task.id");
        assertEquals(inBatchId, answer.getString("items[8].task.id"));
        assertProblem(answer, 9, 422, "(task " + inBatchId + ")");
        assertProblem(answer, 10, 400, "payload must be a JSON object, not an array");
        assertProblem(answer, 11, 400, "deadline must be after runAt");
        assertProblem(answer, 12, 400, "tasks[12]: a JSON object with at least type and payload");
        assertProblem(answer, 13, 400, "tasks[13].idempotencyKey: must be 1 to 200 visible ASCII characters");
        assertEquals(3, answer.getInt("items[14].task.maxAttempts"));
        assertEquals(7, answer.getInt("items[14].task.priority"));
        assertEquals("2030-01-02T00:00:00Z", answer.getString("items[14].task.runAt"));
        assertEquals("2030-01-03T00:00:00Z", answer.getString("items[14].task.deadline"));
        assertEquals(List.of("tasks[15].maxAttempts", "tasks[15].type"),
                answer.getList("items[15].problem.violations.field"));
        for (int refused : new int[] { 1, 2, 3, 4, 6, 9, 10, 11, 12, 13, 15 }) {
            assertNull(answer.get("items[" + refused + "].task"), "a refused task has no task: " + refused);
        }

        List<String> created = List.of(answer.getString("items[0].task.id"), inBatchId,
                answer.getString("items[14].task.id"));
        assertEquals(tasksBefore + 3, tasks(), "only the created tasks were stored");
        for (String id : created) {
            assertEquals(1, Sql.count(db, "select count(*) from tasks where id = ?::uuid", id));
        }
        assertEquals(1, Sql.count(db, "select count(*) from tasks where idempotency_key = ?", inBatch));
        assertEquals(1, Sql.count(db, "select count(*) from tasks where idempotency_key = ?", reused));
        assertEquals(3.0, countedNoopSubmissions() - countedBefore, "PENDING transitions counted for the created tasks");
    }

    @Test
    void aBatchRepeatedWithItsKeysAnswersTheSameTasksAndStoresNothingMore() {
        ArrayNode tasks = JSON.createArrayNode();
        for (int i = 0; i < 3; i++) {
            tasks.add(task("noop", "{\"n\":" + i + "}").put("idempotencyKey", "again-" + i + "-" + UUID.randomUUID()));
        }
        JsonPath first = batch(ApiKeysForTests.SUBMIT_KEY, batchOf(tasks)).then().statusCode(200).extract().jsonPath();
        long stored = tasks();
        JsonPath second = batch(ApiKeysForTests.SUBMIT_KEY, batchOf(tasks)).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(201, 201, 201), first.getList("items.status"));
        assertEquals(List.of(200, 200, 200), second.getList("items.status"));
        assertEquals(first.getList("items.task.id"), second.getList("items.task.id"));
        assertEquals(0, second.getInt("created"));
        assertEquals(3, second.getInt("existing"));
        assertEquals(stored, tasks());
    }

    @Test
    void aThousandTasksAreAllCreatedInTheirOrder() {
        ArrayNode tasks = JSON.createArrayNode();
        for (int i = 0; i < BulkRequest.MAX_TASKS; i++) {
            tasks.add(task("noop", "{\"i\":" + i + "}"));
        }
        long before = tasks();
        JsonPath answer = batch(ApiKeysForTests.SUBMIT_KEY, batchOf(tasks)).then().statusCode(200).extract().jsonPath();
        assertEquals(1000, answer.getInt("created"));
        assertEquals(0, answer.getInt("refused"));
        List<Integer> payloads = answer.getList("items.task.payload.i");
        List<Integer> statuses = answer.getList("items.status");
        for (int i = 0; i < 1000; i++) {
            assertEquals(i, payloads.get(i), "item " + i);
            assertEquals(201, statuses.get(i), "item " + i);
        }
        assertEquals(1000, new HashSet<>(answer.getList("items.task.id")).size());
        assertEquals(before + 1000, tasks());
    }

    @Test
    void aBatchOfNoneOrOverAThousandTasksIsRefusedWhole() {
        ArrayNode tooMany = JSON.createArrayNode();
        for (int i = 0; i <= BulkRequest.MAX_TASKS; i++) {
            tooMany.add(task("noop", "{}"));
        }
        long before = tasks();
        for (String body : List.of("{\"tasks\":[]}", batchOf(tooMany), "{}", "{\"tasks\":null}")) {
            batch(ApiKeysForTests.SUBMIT_KEY, body).then().statusCode(400).contentType("application/problem+json")
                    .body("detail", is("tasks: must be a list of 1 to 1000 tasks"))
                    .body("violations.field", hasItem("tasks")).body("instance", is(BATCH));
        }
        batch(ApiKeysForTests.SUBMIT_KEY, "").then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("a JSON object {\"tasks\": [...]} with 1 to 1000 tasks"));
        assertEquals(before, tasks());
    }

    @Test
    void aBatchThatIsNotTheJsonExpectedIsRefusedWholeAndNamesTheField() {
        long before = tasks();
        batch(ApiKeysForTests.SUBMIT_KEY, "{\"tasks\":[{\"type\":\"noop\",\"payload\":{}},"
                + "{\"type\":\"noop\",\"payload\":{},\"maxAttempts\":\"x\"}]}").then().statusCode(400)
                .contentType("application/problem+json").body("field", is("tasks[1].maxAttempts"));
        batch(ApiKeysForTests.SUBMIT_KEY, "{\"tasks\":[{\"type\":\"noop\",\"payload\":{},\"max_attempts\":3}]}")
                .then().statusCode(400).body("field", is("tasks[0].max_attempts"))
                .body("detail", containsString("idempotencyKey"));
        batch(ApiKeysForTests.SUBMIT_KEY, "[{\"type\":\"noop\",\"payload\":{}}]").then().statusCode(400)
                .body("detail", containsString("the body must be a JSON object"));
        assertEquals(before, tasks());
    }

    @Test
    void aBodyOverTheHttpLimitIs413() {
        ArrayNode tasks = JSON.createArrayNode();
        String big = "x".repeat(60 * 1024);
        for (int i = 0; i < 20; i++) {
            tasks.add(task("noop", "{\"x\":\"" + big + "\"}"));
        }
        long before = tasks();
        batch(ApiKeysForTests.SUBMIT_KEY, batchOf(tasks)).then().statusCode(413).contentType("application/problem+json")
                .body("detail", containsString("at most 1048576 are read"));
        assertEquals(before, tasks());
    }

    @Test
    void aBatchNeedsASubmitOrAdminKey() {
        String body = batchOf(JSON.createArrayNode().add(task("noop", "{}")));
        long before = tasks();
        given().contentType("application/json").body(body).post(BATCH).then().statusCode(401)
                .contentType("application/problem+json").header("WWW-Authenticate", containsString("Bearer"));
        given().auth().oauth2("not-a-key").contentType("application/json").body(body).post(BATCH).then().statusCode(401);
        assertEquals(before, tasks());
        batch(ApiKeysForTests.SUBMIT_KEY, body).then().statusCode(200).body("created", is(1));
        batch(ApiKeysForTests.ADMIN_KEY, body).then().statusCode(200).body("created", is(1));
        assertEquals(before + 2, tasks());
    }

    /**
     * A task PostgreSQL would refuse at insert time (U+0000 in the payload, a time out of range) is refused
     * as its own 400 before the insert, instead of failing the whole batch with a 503.
     */
    @Test
    void aTaskPostgresqlCannotStoreIsRefusedAloneAndTheOthersAreStored() {
        String run = "unstorable-" + UUID.randomUUID();
        List<Arguments> unstorable = TaskApiTest.unstorable().toList();
        ArrayNode tasks = JSON.createArrayNode();
        List<Integer> expected = new ArrayList<>();
        Set<String> goodKeys = new HashSet<>();
        for (int i = 0; i < unstorable.size(); i++) {
            String good = run + "-good-" + i;
            tasks.add(task("noop", "{\"n\":" + i + "}").put("idempotencyKey", good));
            goodKeys.add(good);
            expected.add(201);
            tasks.add(parse("{\"type\":\"noop\"," + unstorable.get(i).get()[0] + "}").put("idempotencyKey",
                    run + "-bad-" + i));
            expected.add(400);
        }
        tasks.add(task("noop", "{}").put("runAt", "1970-01-01T00:00:00Z").put("deadline", "9999-12-31T23:59:59Z")
                .put("idempotencyKey", run + "-ends"));
        goodKeys.add(run + "-ends");
        expected.add(201);

        JsonPath answer = batch(ApiKeysForTests.SUBMIT_KEY, batchOf(tasks)).then().statusCode(200).extract().jsonPath();

        assertEquals(expected, answer.getList("items.status"));
        for (int i = 0; i < unstorable.size(); i++) {
            assertProblem(answer, 2 * i + 1, 400, (String) unstorable.get(i).get()[1]);
        }
        int last = tasks.size() - 1;
        assertEquals("1970-01-01T00:00:00Z", answer.getString("items[" + last + "].task.runAt"));
        assertEquals("9999-12-31T23:59:59Z", answer.getString("items[" + last + "].task.deadline"));
        Set<String> stored = new HashSet<>();
        Sql.rows(db, "select idempotency_key from tasks where idempotency_key like '" + run + "-%'",
                row -> stored.add(row.getString(1)));
        assertEquals(goodKeys, stored, "the table holds exactly the good tasks");
    }

    /**
     * The key order of the insert, made deterministic: this test's transaction holds the key that sorts
     * first, the batch names it second. In key order the batch waits on that key before it takes the other,
     * so the test can then insert the other key too and commit; in the request's order the batch would hold
     * the other key while waiting, and the test's insert of it would deadlock.
     */
    @Test
    void aBatchWaitingOnAKeyHoldsNoLaterKeyMeanwhile() throws Exception {
        String run = "order-" + UUID.randomUUID();
        String first = run + "-1";
        String second = run + "-2";
        ArrayNode tasks = JSON.createArrayNode();
        tasks.add(task("noop", "{\"k\":2}").put("idempotencyKey", second));
        tasks.add(task("noop", "{\"k\":1}").put("idempotencyKey", first));
        String body = batchOf(tasks);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection held = db.getConnection()) {
            held.setAutoCommit(false);
            try (PreparedStatement bounded = held.prepareStatement("set local lock_timeout = '20s'");
                    PreparedStatement held20s = held.prepareStatement(
                            "set local idle_in_transaction_session_timeout = '20s'")) {
                bounded.execute();
                held20s.execute(); // the pool's 10 s would end this test's hold on a slow machine
            }
            UUID firstId = insertNoop(held, first, "{\"k\":1}");
            int heldPid = backendPid(held);
            Future<Response> answer = pool.submit(() -> batch(ApiKeysForTests.SUBMIT_KEY, body));
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> Sql.count(db,
                    "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and pid <> ? "
                            + "and ? = any(pg_blocking_pids(pid))", heldPid, heldPid) == 1);
            UUID secondId = insertNoop(held, second, "{\"k\":2}");
            held.commit();

            JsonPath items = answer.get(30, TimeUnit.SECONDS).then().statusCode(200).extract().jsonPath();
            assertEquals(List.of(200, 200), items.getList("items.status"), items.prettify());
            assertEquals(List.of(secondId.toString(), firstId.toString()), items.getList("items.task.id"));
            assertEquals(0, items.getInt("created"));
            assertEquals(2, items.getInt("existing"));
            assertEquals(2, Sql.count(db, "select count(*) from tasks where idempotency_key like ?", run + "-%"));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Overlapping batches, each with the keys in an order of its own, racing: one task per key, named by all. */
    @Test
    void concurrentBatchesSharingKeysMakeOneTaskPerKey() throws Exception {
        String run = UUID.randomUUID().toString();
        int keys = 60;
        int racers = 6;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        List<Future<JsonPath>> answers = new ArrayList<>();
        List<List<Integer>> orders = new ArrayList<>();
        try {
            for (int racer = 0; racer < racers; racer++) {
                List<Integer> order = new ArrayList<>();
                // Each racer sends 40 of the keys, so that batches overlap in part, in a shuffled order.
                for (int k = 0; k < keys; k++) {
                    order.add(k);
                }
                Collections.shuffle(order, new Random(racer));
                List<Integer> mine = List.copyOf(order.subList(0, 40));
                orders.add(mine);
                ArrayNode tasks = JSON.createArrayNode();
                for (int k : mine) {
                    tasks.add(task("noop", "{\"k\":" + k + "}").put("idempotencyKey", "race-" + run + "-" + k));
                }
                String body = batchOf(tasks);
                answers.add(pool.submit(() -> {
                    start.await();
                    return batch(ApiKeysForTests.SUBMIT_KEY, body).then().statusCode(200).extract().jsonPath();
                }));
            }
            start.countDown();
            Map<Integer, Set<String>> idsByKey = new HashMap<>();
            Map<Integer, Integer> createdByKey = new HashMap<>();
            for (int racer = 0; racer < racers; racer++) {
                JsonPath answer = answers.get(racer).get();
                List<Integer> statuses = answer.getList("items.status");
                List<String> ids = answer.getList("items.task.id");
                List<Integer> mine = orders.get(racer);
                for (int i = 0; i < mine.size(); i++) {
                    int status = statuses.get(i);
                    assertTrue(status == 201 || status == 200, "item " + i + " of racer " + racer + ": " + status);
                    assertNotNull(ids.get(i));
                    idsByKey.computeIfAbsent(mine.get(i), k -> new HashSet<>()).add(ids.get(i));
                    createdByKey.merge(mine.get(i), status == 201 ? 1 : 0, Integer::sum);
                }
            }
            for (Map.Entry<Integer, Set<String>> key : idsByKey.entrySet()) {
                assertEquals(1, key.getValue().size(), "tasks named for key " + key.getKey() + ": " + key.getValue());
                assertEquals(1, createdByKey.get(key.getKey()), "answers that created key " + key.getKey());
                String id = key.getValue().iterator().next();
                assertEquals(1, Sql.count(db, "select count(*) from tasks where idempotency_key = ? and id = ?::uuid",
                        "race-" + run + "-" + key.getKey(), id));
            }
            assertEquals(idsByKey.size(), Sql.count(db, "select count(*) from tasks where idempotency_key like ?",
                    "race-" + run + "-%"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theApiDocumentDescribesTheBatch() {
        JsonPath document = given().queryParam("format", "json").get(management.resolve("/q/openapi")).then()
                .statusCode(200).extract()
                .jsonPath();
        Map<String, Object> post = document.getMap("paths.'/api/v1/tasks/batch'.post");
        assertNotNull(post, "POST /api/v1/tasks/batch is in the document");
        assertEquals("#/components/schemas/SubmitBatch",
                document.getString("paths.'/api/v1/tasks/batch'.post.requestBody.content.'application/json'.schema.'$ref'"));
        assertEquals("#/components/schemas/BatchAnswer",
                document.getString("paths.'/api/v1/tasks/batch'.post.responses.'200'.content.'application/json'.schema.'$ref'"));
        assertNotNull(document.getMap("components.schemas.BatchItem.properties.problem"));
        assertNotNull(document.getMap("components.schemas.BatchItem.properties.task"));
        // A batch's task is a single submission's body plus its key and the other items it waits for: the same
        // fields, with the same constraints.
        Map<String, Object> single = document.getMap("components.schemas.SubmitTask.properties");
        Map<String, Object> batched = new HashMap<>(document.getMap("components.schemas.BatchTask.properties"));
        assertNotNull(batched.remove("idempotencyKey"));
        assertNotNull(batched.remove("dependsOnItems"));
        assertEquals(single, batched);
        assertEquals(document.getList("components.schemas.SubmitTask.required"),
                document.getList("components.schemas.BatchTask.required"));
    }

    private static void assertProblem(JsonPath answer, int index, int status, String says) {
        String at = "items[" + index + "].problem.";
        assertEquals(status, answer.getInt(at + "status"), "item " + index);
        assertNotNull(answer.getString(at + "title"), "item " + index);
        assertEquals(BATCH, answer.getString(at + "instance"), "item " + index);
        String detail = answer.getString(at + "detail");
        assertTrue(detail.contains(says), "item " + index + ": " + detail);
    }

    private static ObjectNode task(String type, String payload) {
        try {
            return JSON.createObjectNode().put("type", type).set("payload", JSON.readTree(payload));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static ObjectNode parse(String task) {
        try {
            return (ObjectNode) JSON.readTree(task);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A task of the submit key's, as its own submission would store it (idempotency keys are per owner). */
    private static UUID insertNoop(Connection connection, String key, String payload) throws SQLException {
        UUID id = UUID.randomUUID();
        try (PreparedStatement insert = connection.prepareStatement("insert into tasks (id, type, payload, max_attempts, "
                + "idempotency_key, owner) values (?, 'noop', ?::jsonb, 5, ?, ?)")) {
            insert.setObject(1, id);
            insert.setString(2, payload);
            insert.setString(3, key);
            insert.setString(4, ApiKeysForTests.SUBMIT_KEY_NAME);
            insert.executeUpdate();
        }
        return id;
    }

    private static int backendPid(Connection connection) throws SQLException {
        try (PreparedStatement pid = connection.prepareStatement("select pg_backend_pid()");
                ResultSet row = pid.executeQuery()) {
            row.next();
            return row.getInt(1);
        }
    }

    private static String batchOf(ArrayNode tasks) {
        return JSON.createObjectNode().set("tasks", tasks).toString();
    }

    private static Response batch(String key, String body) {
        return given().auth().oauth2(key).contentType("application/json").body(body).post(BATCH);
    }

    private static String single(String body, String key) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .header("Idempotency-Key", key).body(body).post("/api/v1/tasks").then().statusCode(201).extract().path("id");
    }

    private double countedNoopSubmissions() {
        String metrics = given().get(management.resolve("/q/metrics")).then().statusCode(200).extract().asString();
        Matcher counted = NOOP_CREATED.matcher(metrics);
        return counted.find() ? Double.parseDouble(counted.group(1)) : 0;
    }

    private long tasks() {
        return Sql.count(db, "select count(*) from tasks");
    }
}

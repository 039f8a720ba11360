package io.taskfence.api.tasks;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A submission's {@code dedupe} (DESIGN.md, "Submission", "Dedupe"): while the task a key made has not started, a
 * submission with the key answers it (200) after ignoring, replacing or debouncing it; after the start the key makes a
 * new task. Concurrent submissions of one key leave one task.
 */
@QuarkusTest
@TestServers
class DedupeTest {

    private static final String TASKS = "/api/v1/tasks";

    @Inject
    DataSource db;
    @Inject
    TaskFixtures fixtures;
    @Inject
    TaskTransitions transitions;

    @Test
    void ignoreAnswersTheTaskTheKeyHoldsUnchanged() {
        String key = key();
        Instant later = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
        String id = submit(task("{\"n\":1}", ", \"runAt\":\"" + later + "\"", dedupe(key, "ignore", ""))).statusCode(201)
                .extract().path("id");
        submit(task("{\"n\":2}", ", \"priority\":5", dedupe(key, "ignore", ""))).statusCode(200)
                .body("id", is(id)).body("payload.n", is(1)).body("priority", is(0)).body("runAt", is(later.toString()));
        events(id).body("items.size()", is(1));
    }

    @Test
    void replaceGivesTheTaskThePayloadRunAtAndPriorityOfTheLastSubmission() {
        String key = key();
        Instant later = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
        String id = submit(task("{\"n\":1}", ", \"runAt\":\"" + later + "\"", dedupe(key, "replace", ""))).statusCode(201)
                .extract().path("id");
        Instant evenLater = later.plus(1, ChronoUnit.HOURS);
        submit(task("{\"n\":2}", ", \"runAt\":\"" + evenLater + "\", \"priority\":7", dedupe(key, "replace", "")))
                .statusCode(200).body("id", is(id)).body("payload.n", is(2)).body("priority", is(7))
                .body("runAt", is(evenLater.toString())).body("status", is("PENDING"));
        get(id).body("payload.n", is(2)).body("runAt", is(evenLater.toString()));
        events(id).body("items.size()", is(2)).body("items[1].from", is("PENDING")).body("items[1].to", is("PENDING"))
                .body("items[1].note", is("replaced (dedupe key " + key + "): runAt "
                        + evenLater.toString().replace("Z", ".000Z")));
    }

    @Test
    void debounceMovesRunAtToNowPlusPeriodButNeverPastTheFirstSubmissionPlusMaxWait() {
        String key = key();
        JsonPath first = submit(task("{\"n\":1}", "", dedupe(key, "debounce", ", \"period\":\"40m\", \"maxWait\":\"1h\"")))
                .statusCode(201).extract().jsonPath();
        Instant runAt = Instant.parse(first.getString("runAt"));
        // Both from one reading of the clock, once the key's lock was held: runAt = t + period, the bound t + maxWait.
        assertEquals(runBy(key).minus(Duration.ofMinutes(20)), runAt, "the first submission's runAt: its time + period");
        assertTrue(!runAt.isBefore(Instant.parse(first.getString("createdAt")).plus(Duration.ofMinutes(40))));
        Sql.run(db, "update task_dedupes set run_by = run_by - interval '30 minutes' where key = ?", key);
        // As if the first had been submitted 30 minutes ago: now + 40m is past its bound, first + 1h.
        JsonPath second = submit(task("{\"n\":2}", "", dedupe(key, "debounce", ", \"period\":\"40m\", \"maxWait\":\"1h\"")))
                .statusCode(200).extract().jsonPath();
        assertEquals(first.getString("id"), second.getString("id"));
        assertEquals(2, second.getInt("payload.n"));
        assertEquals(runBy(key), Instant.parse(second.getString("runAt")), "runAt held at the first submission + maxWait");
        JsonPath third = submit(task("{\"n\":3}", "", dedupe(key, "debounce", ", \"period\":\"1m\""))).statusCode(200)
                .extract().jsonPath();
        Instant thirdRunAt = Instant.parse(third.getString("runAt"));
        assertTrue(!thirdRunAt.isBefore(Instant.parse(third.getString("updatedAt")).plus(Duration.ofMinutes(1)))
                && thirdRunAt.isBefore(runBy(key)), "a shorter period moves runAt earlier, to now + period: " + thirdRunAt);
        events(first.getString("id")).body("items.note[1]", containsString("debounced (dedupe key " + key + ")"));
    }

    /** A task made by a replace has no bound; the first debounce with a maxWait gives it one. */
    @Test
    void aDebounceBoundsATaskItsKeyHoldsWithoutOne() {
        String key = key();
        String later = ", \"runAt\":\"" + Instant.now().plus(1, ChronoUnit.HOURS) + "\"";
        submit(task("{\"n\":1}", later, dedupe(key, "replace", ""))).statusCode(201);
        assertNull(Sql.value(db, "select run_by from task_dedupes where key = ?", key));
        JsonPath debounced = submit(task("{\"n\":2}", "", dedupe(key, "debounce", ", \"period\":\"5m\", \"maxWait\":\"10m\"")))
                .statusCode(200).extract().jsonPath();
        assertEquals(runBy(key).minus(Duration.ofMinutes(5)), Instant.parse(debounced.getString("runAt")));
    }

    @Test
    void onceTheTaskHasStartedTheKeyMakesANewTaskEvenIfItWaitsAgain() {
        String key = key();
        String id = submit(task("{\"n\":1}", "", dedupe(key, "replace", ""))).statusCode(201).extract().path("id");
        fixtures.enqueue(List.of(UUID.fromString(id)));
        Claim claim = transitions.claim(UUID.fromString(id), "dedupe-test/claim", Duration.ofMinutes(1)).orElseThrow();
        // Handed back (as at a shutdown): PENDING again, its attempt not counted, but it has run.
        assertEquals(Optional.of(TaskStatus.PENDING), transitions.later(claim, Duration.ofHours(1)));
        get(id).body("status", is("PENDING")).body("attempt", is(0));
        String next = submit(task("{\"n\":2}", "", dedupe(key, "replace", ""))).statusCode(201).extract().path("id");
        assertTrue(!next.equals(id), "a new task");
        get(id).body("payload.n", is(1));
    }

    @Test
    void aKeyIsScopedToTheSubmittingApiKeyAndTheType() {
        String key = key();
        String later = ", \"runAt\":\"" + Instant.now().plus(1, ChronoUnit.HOURS) + "\"";
        String mine = submit(task("{}", later, dedupe(key, "ignore", ""))).statusCode(201).extract().path("id");
        String theirs = as(ApiKeysForTests.OTHER_SUBMIT_KEY).body(task("{}", later, dedupe(key, "ignore", "")))
                .post(TASKS).then().statusCode(201).extract().path("id");
        String otherType = submit("{\"type\":\"sleep\",\"payload\":{\"ms\":1}" + later + ", \"dedupe\":"
                + dedupe(key, "ignore", "") + "}").statusCode(201).extract().path("id");
        assertEquals(3, Set.of(mine, theirs, otherType).size());
    }

    /** One request with the key twice: one task, the second answering it; a batch's tasks all checked alike. */
    @Test
    void aBulkSubmissionWithOneKeyTwiceMakesOneTask() {
        String key = key();
        String later = ", \"runAt\":\"" + Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS) + "\"";
        String body = "{\"tasks\":[" + task("{\"n\":1}", later, dedupe(key, "replace", "")) + ","
                + task("{\"n\":2}", later, dedupe(key, "replace", "")) + "]}";
        JsonPath answer = as(ApiKeysForTests.SUBMIT_KEY).body(body).post(TASKS + "/batch").then().statusCode(200)
                .extract().jsonPath();
        assertEquals(List.of(201, 200), answer.getList("items.status"));
        assertEquals(answer.getString("items[0].task.id"), answer.getString("items[1].task.id"));
        get(answer.getString("items[0].task.id")).body("payload.n", is(2));
    }

    /**
     * Batches that name the same three keys in opposite orders, 8 threads at once: every task of every batch is
     * answered (made or deduplicated, none refused or failed), and each key made one task.
     */
    @Test
    void batchesNamingTheSameKeysInOppositeOrdersAtOnceAllAnswerAndLeaveOneTaskAKey() throws Exception {
        List<String> keys = List.of(key(), key(), key());
        String later = ", \"runAt\":\"" + Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS) + "\"";
        ExecutorService clients = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Integer>>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < 80; i++) {
                List<String> order = i % 2 == 0 ? keys : keys.reversed();
                String body = "{\"tasks\":[" + String.join(",", order.stream().map(key -> task("{\"m\":\"" + key
                        + "\"}", later, dedupe(key, "replace", ""))).toList()) + "]}";
                answers.add(clients.submit(() -> {
                    start.await();
                    return as(ApiKeysForTests.SUBMIT_KEY).body(body).post(TASKS + "/batch").then().statusCode(200)
                            .extract().jsonPath().getList("items.status", Integer.class);
                }));
            }
            start.countDown();
            int made = 0;
            for (Future<List<Integer>> answer : answers) {
                List<Integer> statuses = answer.get();
                assertTrue(statuses.stream().allMatch(status -> status == 200 || status == 201), statuses.toString());
                made += (int) statuses.stream().filter(status -> status == 201).count();
            }
            assertEquals(3, made, "one task made per key, every other submission answered it");
            for (String key : keys) {
                assertEquals(1L, Sql.count(db, "select count(*) from tasks where payload ->> 'm' = ?", key), key);
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /**
     * 16 threads submit 400 debounces of one key at once, then one more after all were answered: one task, every
     * answer names it, its payload is the last one's, and its history has a debounce for each submission after the
     * first.
     */
    @Test
    void concurrentDebouncesOfOneKeyLeaveOneTaskWithTheLastPayload() throws Exception {
        String key = key();
        String period = ", \"period\":\"1h\"";
        ExecutorService clients = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < 400; i++) {
                String body = task("{\"n\":" + i + ",\"m\":\"" + key + "\"}", "", dedupe(key, "debounce", period));
                answers.add(clients.submit(() -> {
                    start.await();
                    return submit(body).statusCode(org.hamcrest.Matchers.anyOf(is(200), is(201))).extract()
                            .path("id");
                }));
            }
            start.countDown();
            Set<String> ids = new HashSet<>();
            for (Future<String> answer : answers) {
                ids.add(answer.get());
            }
            assertEquals(1, ids.size(), "every submission answered one task: " + ids);
            String id = ids.iterator().next();
            submit(task("{\"n\":\"last\",\"m\":\"" + key + "\"}", "", dedupe(key, "debounce", period))).statusCode(200)
                    .body("id", is(id));
            get(id).body("payload.n", is("last")).body("status", is("PENDING"));
            assertEquals(1L, Sql.count(db, "select count(*) from tasks where payload ->> 'm' = ?", key));
            events(id).body("items.size()", is(401)).body("items.note.findAll { it != null }.size()", is(400));
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void whatADedupeMayNotBeSentWithIsRefusedAndStoresNothing() {
        String key = key();
        String mark = "{\"m\":\"" + key + "\"}";
        refused(as(ApiKeysForTests.SUBMIT_KEY).header("Idempotency-Key", key).body(task(mark, "", dedupe(key, "ignore",
                ""))), "dedupe", "dedupe and an idempotency key do not go together");
        refused(as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, ", \"dependsOn\":[\"" + UUID.randomUUID() + "\"]",
                dedupe(key, "ignore", ""))), "dedupe", "may not wait for other tasks");
        refused(as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, "", dedupe(key, "debounce", ""))), "dedupe.period",
                "a debounce needs a period");
        refused(as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, "", dedupe(key, "replace", ", \"period\":\"5s\""))),
                "dedupe.period", "mode replace takes neither");
        refused(as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, ", \"runAt\":\"" + Instant.now() + "\"",
                dedupe(key, "debounce", ", \"period\":\"5s\""))), "runAt", "send no runAt with it");
        refused(as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, "", dedupe(key, "debounce",
                ", \"period\":\"5m\", \"maxWait\":\"1m\""))), "dedupe.maxWait", "must be at least period (5m)");
        refused(as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, "", dedupe(key, "debounce", ", \"period\":\"25h\""))),
                "dedupe.period", "at most 24h, not 25h");
        as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, "", dedupe(key, "sometimes", ""))).post(TASKS).then()
                .statusCode(400).body("violations[0].field", is("dedupe.mode"))
                .body("violations[0].message", is("must be ignore, replace or debounce"));
        as(ApiKeysForTests.SUBMIT_KEY).body(task(mark, "", dedupe(key, "debounce", ", \"period\":\"5 seconds\"")))
                .post(TASKS).then().statusCode(400).body("violations[0].field", is("dedupe.period"));

        String inABatch = "{\"then\":{\"type\":\"noop\",\"payload\":" + mark + "},\"tasks\":[" + task(mark, "",
                dedupe(key, "ignore", "")) + "," + task(mark, "", "null") + "]}";
        as(ApiKeysForTests.SUBMIT_KEY).body(inABatch).post(TASKS + "/batch").then().statusCode(200)
                .body("items[0].status", is(400)).body("items[0].problem.detail", containsString("a task of a batch"))
                .body("items[1].status", is(201));
        String naming = "{\"tasks\":[" + task(mark, "", dedupe(key, "ignore", "")) + ",{\"type\":\"noop\","
                + "\"payload\":" + mark + ",\"dependsOnItems\":[0]}]}";
        as(ApiKeysForTests.SUBMIT_KEY).body(naming).post(TASKS + "/batch").then().statusCode(200)
                .body("items[1].status", is(400))
                .body("items[1].problem.detail", containsString("wait for that task by its id"));
        // The batch's second task and the first task of the last request were stored (a batch's then task too).
        assertEquals(3L, Sql.count(db, "select count(*) from tasks where payload ->> 'm' = ?", key));
    }

    /** The bound the key's task runs by (first submission + maxWait), from task_dedupes. */
    private Instant runBy(String key) {
        return Instant.parse(Sql.value(db, "select to_char(run_by at time zone 'UTC', "
                + "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') from task_dedupes where key = ?", key));
    }

    private static void refused(RequestSpecification request, String field, String detail) {
        request.post(TASKS).then().statusCode(400).contentType("application/problem+json")
                .body("field", is(field)).body("detail", containsString(detail)).body("detail", not(is("")));
    }

    private static String key() {
        return "dedupe-" + UUID.randomUUID();
    }

    private static String dedupe(String key, String mode, String more) {
        return "{\"key\":\"" + key + "\",\"mode\":\"" + mode + "\"" + more + "}";
    }

    private static String task(String payload, String more, String dedupe) {
        return "{\"type\":\"noop\",\"payload\":" + payload + more + ",\"dedupe\":" + dedupe + "}";
    }

    private static ValidatableResponse submit(String body) {
        return as(ApiKeysForTests.SUBMIT_KEY).body(body).post(TASKS).then();
    }

    private static ValidatableResponse get(String id) {
        return as(ApiKeysForTests.SUBMIT_KEY).get(TASKS + "/{id}", id).then().statusCode(200);
    }

    private static ValidatableResponse events(String id) {
        return as(ApiKeysForTests.SUBMIT_KEY).get(TASKS + "/{id}/events", id).then().statusCode(200);
    }

    private static RequestSpecification as(String apiKey) {
        return given().auth().oauth2(apiKey).contentType("application/json");
    }
}

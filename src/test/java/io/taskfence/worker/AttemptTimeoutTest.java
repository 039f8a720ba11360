package io.taskfence.worker;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.task.Task;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.WorkerApiCalls;

/**
 * Attempt time-outs (DESIGN.md, "Task lifecycle", "Attempt time-outs"): a local handler past its time-out is
 * interrupted and its attempt fails "timed out after ...", retried as any failure; a remote worker's claim past it is
 * refused (409) and recovery fails the attempt, which the next claim takes. A task's own time-out is capped at its
 * type's, and the view shows the one that applies.
 */
@QuarkusTest
@TestServers
@TestProfile(TimedAndProgressingTypes.class)
class AttemptTimeoutTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    TaskQueries queries;
    @Inject
    DataSource db;

    @Test
    void aLocalHandlerPastItsTypesTimeoutIsInterruptedAndTheAttemptFailsAndIsRetried() {
        long start = System.nanoTime();
        JsonPath submitted = submit("{\"type\":\"sleep\",\"payload\":{\"ms\":10000},\"maxAttempts\":2}");
        assertEquals("1s", submitted.getString("timeout"), "the view shows the type's time-out");
        UUID id = UUID.fromString(submitted.getString("id"));

        // Attempt 1 times out after 1 s, is retried after a backoff of at most 1 s, and attempt 2 times out too.
        Task dead = await().atMost(WAIT).until(() -> task(id), task -> task.status() == TaskStatus.DEAD);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertEquals(2, dead.attempt(), "the timed-out attempt was retried");
        assertEquals("timed out after 1s", dead.lastError());
        assertTrue(took.compareTo(Duration.ofSeconds(9)) < 0,
                "two attempts of a 10 s sleep took " + took + ": the handler was not stopped at its time-out");
    }

    @Test
    void theTypesShowTheirTimeOuts() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'sleep' }.timeout", is("1s"))
                .body("find { it.type == 'noop' }.timeout", nullValue());
    }

    @Test
    void aTimedOutLocalAttemptIsStoppedWithinTwoSeconds() {
        JsonPath submitted = submit("{\"type\":\"sleep\",\"payload\":{\"ms\":10000},\"maxAttempts\":1}");
        UUID id = UUID.fromString(submitted.getString("id"));
        Task dead = await().atMost(WAIT).until(() -> task(id), task -> task.status() == TaskStatus.DEAD);
        assertEquals(1, dead.attempt());
        assertEquals("timed out after 1s", dead.lastError());
        // By PostgreSQL's clock, from the claim's transaction to the failure's: the time-out, the interrupt and the write,
        // without the test's polls and its thread's turns on a busy machine.
        double after = Double.parseDouble(Sql.value(db, "select extract(epoch from max(at) filter (where to_status = "
                + "'DEAD') - max(at) filter (where to_status = 'PROCESSING')) from task_events where task_id = ?", id));
        assertTrue(after < 2.0, "DEAD " + after + " s after its claim");
    }

    @Test
    void aTasksOwnTimeoutAppliesWhenShorterAndIsCappedAtItsTypesWhenLonger() {
        UUID shorter = UUID.fromString(submit("{\"type\":\"sleep\",\"payload\":{\"ms\":10000},\"maxAttempts\":1,"
                + "\"timeout\":\"300ms\"}").getString("id"));
        assertEquals("300ms", task(shorter).timeout());
        Task dead = await().atMost(WAIT).until(() -> task(shorter), task -> task.status() == TaskStatus.DEAD);
        assertEquals("timed out after 300ms", dead.lastError());

        JsonPath longer = submit("{\"type\":\"sleep\",\"payload\":{\"ms\":1},\"timeout\":\"5s\"}");
        assertEquals("1s", longer.getString("timeout"), "capped at the type's");
        JsonPath untimedType = submit("{\"type\":\"noop\",\"payload\":{},\"timeout\":\"2500ms\"}");
        assertEquals("2500ms", untimedType.getString("timeout"), "a type without a time-out takes the task's");
        submitter().contentType("application/json").body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks")
                .then().statusCode(201).body("timeout", nullValue());
        await().atMost(WAIT).until(() -> task(UUID.fromString(untimedType.getString("id"))).status(),
                TaskStatus.SUCCEEDED::equals);
    }

    @Test
    void aTimeoutThatIsNotADurationAboveZeroIsRefused() {
        for (String timeout : new String[] { "0s", "0ms", "soon", "1m", "-1s", "1.5s" }) {
            submitter().contentType("application/json")
                    .body("{\"type\":\"noop\",\"payload\":{},\"timeout\":\"" + timeout + "\"}").post("/api/v1/tasks")
                    .then().statusCode(400).contentType("application/problem+json")
                    .body(containsString("timeout"));
        }
        JsonPath batch = submitter().contentType("application/json").body("{\"tasks\":[{\"type\":\"noop\","
                + "\"payload\":{},\"timeout\":\"0s\"},{\"type\":\"noop\",\"payload\":{},\"timeout\":\"1h\"}]}")
                .post("/api/v1/tasks/batch").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(400, 400), batch.getList("items.status"), batch.prettify());
        assertTrue(batch.prettify().contains("tasks[1].timeout"), batch.prettify());
    }

    @Test
    void aRemoteClaimPastItsTimeoutIsRefusedAndTheTaskIsRetried() throws InterruptedException {
        UUID id = UUID.fromString(submit("{\"type\":\"encode\",\"payload\":{},\"maxAttempts\":3}").getString("id"));
        JsonPath claim = claimOne("encode");
        Instant answered = Instant.now(); // after the claim's commit, which started the lease and the time-out
        assertEquals(id.toString(), claim.getString("taskId"));
        assertEquals("1s", claim.getString("timeout"));
        Instant leaseUntil = Instant.parse(claim.getString("leaseUntil"));
        assertTrue(leaseUntil.isBefore(answered.plusMillis(1_500)),
                "the lease (3 s) ends at the time-out (1 s) instead: " + leaseUntil + ", answered at " + answered);
        String claimId = claim.getString("claimId");

        Thread.sleep(1_500); // past the time-out by PostgreSQL's clock too: it started it when the claim committed
        worker().post("/api/v1/claims/" + claimId + "/heartbeat").then().statusCode(409)
                .contentType("application/problem+json").body("title", is("Claim Superseded"));
        worker().contentType("application/json").body("{\"result\":{\"late\":true}}")
                .post("/api/v1/claims/" + claimId + "/complete").then().statusCode(409);
        worker().contentType("application/json").body("{\"error\":\"late\"}")
                .post("/api/v1/claims/" + claimId + "/fail").then().statusCode(409);

        // Recovery fails the attempt at the time-out; after the backoff the next claim takes the task.
        // Completed at once: this claim's time-out is a second too.
        JsonPath next = claimOne("encode");
        worker().contentType("application/json").body("{\"result\":{\"rendered\":true}}")
                .post("/api/v1/claims/" + next.getString("claimId") + "/complete").then().statusCode(200)
                .body("status", is("SUCCEEDED"));
        assertEquals(id.toString(), next.getString("taskId"));
        assertEquals(2, next.getInt("attempt"));
        assertEquals("timed out after 1s", task(id).lastError(), "the first attempt's error stays with the task");
        assertTrue(task(id).result().get("rendered").asBoolean(), "the claim within its time-out completed the task");
    }

    private static RequestSpecification submitter() {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY);
    }

    private static RequestSpecification worker() {
        return given().auth().oauth2(ApiKeysForTests.ANY_WORKER_KEY);
    }

    private static JsonPath submit(String body) {
        return submitter().contentType("application/json").body(body).post("/api/v1/tasks").then().statusCode(201)
                .extract().jsonPath();
    }

    /** One claim of the type, waiting for it as long as the test allows; its fields at the root. */
    private static JsonPath claimOne(String type) {
        return WorkerApiCalls.claimOne(ApiKeysForTests.ANY_WORKER_KEY, type, WAIT);
    }

    private Task task(UUID id) {
        return queries.find(id).orElseThrow();
    }
}

package io.taskfence.remote;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.task.Task;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.WorkerApiCalls;
import io.taskfence.worker.RunningTasksProfile;

/**
 * The worker API against the real dispatch, stream and table (DESIGN.md, "Remote workers"): a remote worker claims a
 * task with its fencing token, extends and ends its claim, and every write of a claim that no longer holds its task
 * (cancelled, recovered after its lease ran out, taken by the next attempt) is refused with 409 and changes nothing.
 * Each test uses a remote type of its own, so that one test's leftovers never reach another's claims.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class RemoteWorkersTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    TaskQueries queries;

    @Inject
    DataSource db;

    @Test
    void aWorkerClaimsATaskWithItsFencingTokenExtendsTheClaimAndCompletesIt() {
        UUID id = submit("resize", "{\"image\":\"a.png\"}");
        JsonPath claim = claimOne("resize");
        assertEquals(id.toString(), claim.getString("taskId"));
        assertEquals("resize", claim.getString("type"));
        assertEquals("a.png", claim.getString("payload.image"));
        assertEquals(1, claim.getInt("attempt"));
        assertEquals(1L, claim.getLong("fencingToken"));
        assertEquals(ApiKeysForTests.SUBMIT_KEY_NAME, claim.getString("owner"));
        Instant leaseUntil = Instant.parse(claim.getString("leaseUntil"));
        String claimId = claim.getString("claimId");

        Instant extended = Instant.parse(given().auth().oauth2(ApiKeysForTests.WORKER_KEY)
                .post("/api/v1/claims/" + claimId + "/heartbeat").then().statusCode(200).extract().path("leaseUntil"));
        assertTrue(!extended.isBefore(leaseUntil), "a heartbeat moves the lease's end on, not back");
        assertEquals(TaskStatus.PROCESSING, task(id).status());

        worker().contentType("application/json").body("{\"result\":{\"width\":640}}")
                .post("/api/v1/claims/" + claimId + "/complete").then().statusCode(200).body("status", is("SUCCEEDED"));
        Task done = task(id);
        assertEquals(TaskStatus.SUCCEEDED, done.status());
        assertEquals(640, done.result().get("width").asInt());
        worker().contentType("application/json").body("{\"result\":{\"width\":1}}")
                .post("/api/v1/claims/" + claimId + "/complete").then().statusCode(409)
                .contentType("application/problem+json").body("detail", containsString("SUCCEEDED"));
        assertEquals(640, task(id).result().get("width").asInt(), "a second completion stores nothing");
    }

    @Test
    void aClaimThatWaitsGetsTheTaskSubmittedWhileItWaits() throws Exception {
        CompletableFuture<JsonPath> waiting = CompletableFuture.supplyAsync(() -> worker().contentType("application/json")
                .body("{\"types\":[\"archive\"],\"wait\":\"30s\"}").post("/api/v1/claims").then().statusCode(200)
                .extract().jsonPath());
        UUID id = submit("archive", "{}");
        JsonPath answer = waiting.get();
        assertEquals(List.of(id.toString()), answer.getList("claims.taskId"), "the waiting claim got the task");
        // Nothing else of the type is there: a claim that may not wait answers at once, with nothing claimed.
        worker().contentType("application/json").body("{\"types\":[\"archive\"]}").post("/api/v1/claims").then()
                .statusCode(200).body("claims", empty());
        complete(answer.getString("claims[0].claimId"));
    }

    @Test
    void aCancelReachesTheWorkerAtItsNextHeartbeatAndTheTaskStaysCancelled() {
        UUID id = submit("ocr", "{}");
        String claimId = claimOne("ocr").getString("claimId");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + id + "/cancel").then().statusCode(200);

        worker().post("/api/v1/claims/" + claimId + "/heartbeat").then().statusCode(409)
                .contentType("application/problem+json").body("title", is("Claim Superseded"))
                .body("detail", containsString("the task was cancelled"));
        worker().contentType("application/json").body("{\"result\":{\"text\":\"late\"}}")
                .post("/api/v1/claims/" + claimId + "/complete").then().statusCode(409);
        worker().contentType("application/json").body("{\"error\":\"late\"}")
                .post("/api/v1/claims/" + claimId + "/fail").then().statusCode(409);
        Task cancelled = task(id);
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertTrue(cancelled.result() == null || cancelled.result().isNull(), "no result was stored");
    }

    @Test
    void aClaimWhoseLeaseRanOutIsSupersededByTheNextAndItsResultIsNeverStored() {
        UUID id = submit("transcode", "{}");
        JsonPath stalled = claimOne("transcode");
        // The stalled worker sends no heartbeat: recovery fails the attempt once its lease (3 s) is over, and
        // dispatch hands the task to the next claim after the backoff (at most 1 s).
        JsonPath next = claimOne("transcode");
        assertEquals(id.toString(), next.getString("taskId"));
        assertEquals(2, next.getInt("attempt"));
        assertEquals(2L, next.getLong("fencingToken"), "each claim draws the task's next token");

        String old = stalled.getString("claimId");
        worker().post("/api/v1/claims/" + old + "/heartbeat").then().statusCode(409)
                .body("detail", containsString("attempt 2 holds the task now"));
        worker().contentType("application/json").body("{\"result\":{\"by\":\"stalled\"}}")
                .post("/api/v1/claims/" + old + "/complete").then().statusCode(409);
        complete(next.getString("claimId"), "{\"by\":\"next\"}");

        assertEquals("next", task(id).result().get("by").asText());
        assertEquals(1, Sql.count(db, "select count(*) from task_events where task_id = ? and to_status = 'SUCCEEDED'",
                id), "one success in the history: the next claim's");
    }

    @Test
    void aFailureIsRetriedAfterTheDelayTheWorkerAsksAndOneThatCannotBeRetriedIsDead() {
        UUID id = submit("resize", "{\"retry\":true}");
        String first = claimOne("resize").getString("claimId");
        worker().contentType("application/json").body("{\"error\":\"disk full\",\"retryAfter\":\"0s\"}")
                .post("/api/v1/claims/" + first + "/fail").then().statusCode(200).body("status", is("FAILED"));
        assertEquals("disk full", task(id).lastError());

        JsonPath second = claimOne("resize");
        assertEquals(2, second.getInt("attempt"));
        worker().contentType("application/json").body("{\"error\":\"not an image\",\"retryable\":false}")
                .post("/api/v1/claims/" + second.getString("claimId") + "/fail").then().statusCode(200)
                .body("status", is("DEAD"));
        Task dead = task(id);
        assertEquals(TaskStatus.DEAD, dead.status());
        assertEquals("not an image", dead.lastError());
    }

    @Test
    void aReadThatWaitsIsAnsweredWhenTheTaskEndsOrWhenItsWaitIsOver() throws Exception {
        UUID id = submit("archive", "{\"waited\":true}");
        CompletableFuture<JsonPath> waiting = CompletableFuture.supplyAsync(() -> given().auth()
                .oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id + "?wait=30s").then().statusCode(200)
                .extract().jsonPath());
        JsonPath claim = claimOne("archive");
        assertEquals(id.toString(), claim.getString("taskId"));
        // Not ended yet: a short wait answers the task as it is when the wait is over.
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id + "?wait=200ms").then()
                .statusCode(200).body("status", is("PROCESSING"));
        assertTrue(!waiting.isDone(), "the waiting read answered before the task ended: " + waiting.getNow(null));
        complete(claim.getString("claimId"), "{\"archived\":1}");
        JsonPath answer = waiting.get();
        assertEquals("SUCCEEDED", answer.getString("status"));
        assertEquals(1, answer.getInt("result.archived"));

        UUID cancelled = submit("archive", "{\"waited\":\"cancel\"}");
        CompletableFuture<JsonPath> cancelWait = CompletableFuture.supplyAsync(() -> given().auth()
                .oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + cancelled + "?wait=30s").then()
                .statusCode(200).extract().jsonPath());
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + cancelled + "/cancel").then()
                .statusCode(200);
        assertEquals("CANCELLED", cancelWait.get().getString("status"));

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id + "?wait=90s").then()
                .statusCode(400).contentType("application/problem+json").body("violations[0].field", is("wait"));
        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).get("/api/v1/tasks/" + id + "?wait=1s").then()
                .statusCode(404);
    }

    @Test
    void aReleasedTaskIsClaimedAgainWithoutUsingAnAttempt() {
        UUID id = submit("ocr", "{\"released\":true}");
        String first = claimOne("ocr").getString("claimId");
        worker().post("/api/v1/claims/" + first + "/release").then().statusCode(200).body("status", is("PENDING"));
        worker().post("/api/v1/claims/" + first + "/release").then().statusCode(409);
        JsonPath again = claimOne("ocr");
        assertEquals(id.toString(), again.getString("taskId"));
        assertEquals(1, again.getInt("attempt"), "a release gives its attempt back");
        assertEquals(2L, again.getLong("fencingToken"), "but the token goes on");
        complete(again.getString("claimId"));
    }

    @Test
    void onlyAWorkerKeyClaimsAndOnlyTheRemoteTypesItNames() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"types\":[\"resize\"]}").post("/api/v1/claims").then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).contentType("application/json")
                .body("{\"types\":[\"resize\"]}").post("/api/v1/claims").then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.THUMBNAIL_WORKER_KEY).contentType("application/json")
                .body("{\"types\":[\"thumbnail\",\"resize\"]}").post("/api/v1/claims").then().statusCode(403)
                .contentType("application/problem+json")
                .body("detail", is("API key 'thumbnailer' may not claim 'resize' tasks; it may claim [thumbnail]"));
        // A remote type's payload is checked against its schema at submission.
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"resize\",\"payload\":{\"image\":5}}").post("/api/v1/tasks").then().statusCode(422)
                .body("field", is("payload")).body("detail", containsString("payload/image: "));
        worker().contentType("application/json").body("{\"types\":[\"noop\"]}").post("/api/v1/claims").then()
                .statusCode(422).body("field", is("types")).body("detail", containsString("'noop' is not a remote task type"));
        // A worker key runs tasks; it neither submits nor reads them.
        worker().contentType("application/json").body("{\"type\":\"resize\",\"payload\":{}}").post("/api/v1/tasks")
                .then().statusCode(403);
        worker().get("/api/v1/tasks").then().statusCode(403);
    }

    @Test
    void badClaimRequestsAreRefusedWithAProblemNamingTheField() {
        worker().contentType("application/json").body("{}").post("/api/v1/claims").then().statusCode(400)
                .contentType("application/problem+json").body("violations[0].field", is("types"));
        worker().contentType("application/json").body("{\"types\":[\"resize\"],\"wait\":\"90s\"}")
                .post("/api/v1/claims").then().statusCode(400).body("field", is("wait"))
                .body("detail", is("wait must be at most 60s, not 90s"));
        worker().contentType("application/json").body("{\"types\":[\"resize\"],\"wait\":\"soon\"}")
                .post("/api/v1/claims").then().statusCode(400);
        worker().contentType("application/json").body("{\"types\":[\"resize\"],\"max\":0}")
                .post("/api/v1/claims").then().statusCode(400).body("violations[0].field", is("max"));
        worker().post("/api/v1/claims/not-a-claim/heartbeat").then().statusCode(404)
                .contentType("application/problem+json");
        worker().contentType("application/json").body("{}").post("/api/v1/claims/" + UUID.randomUUID() + ".1.eA/fail")
                .then().statusCode(400).body("violations[0].field", is("error"));
    }

    @Test
    void anotherKeysClaimIsNotFoundAndAResultThatCannotBeStoredIsRefused() {
        UUID id = submit("thumbnail", "{}");
        String claimId = claimOne("thumbnail").getString("claimId");
        given().auth().oauth2(ApiKeysForTests.THUMBNAIL_WORKER_KEY).post("/api/v1/claims/" + claimId + "/heartbeat")
                .then().statusCode(404).body("detail", containsString("of this key"));
        worker().contentType("application/json").body("{\"result\":{\"text\":\"nul \\u0000 here\"}}")
                .post("/api/v1/claims/" + claimId + "/complete").then().statusCode(422).body("field", is("result"));
        assertEquals(TaskStatus.PROCESSING, task(id).status(), "the claim still holds: the worker may fail it instead");
        complete(claimId);
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'thumbnail' }.remote", is(true))
                .body("find { it.type == 'noop' }.remote", is(false))
                .body("find { it.type == 'thumbnail' }.maxConcurrency", nullValue());
    }

    /**
     * Eight workers claiming batches of one type at once, with 300 tasks to share: each task is claimed once (one
     * dispatch, one claim), every claim's token is 1, and every task ends SUCCEEDED.
     */
    @Test
    void concurrentWorkersClaimEachTaskOnce() throws Exception {
        int tasks = 300;
        StringBuilder batch = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < tasks; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"type\":\"thumbnail\",\"payload\":{\"n\":").append(i).append("}}");
        }
        List<String> ids = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body(batch.append("]}").toString()).post("/api/v1/tasks/batch").then().statusCode(200).extract()
                .jsonPath().getList("items.task.id");
        Set<String> submitted = Set.copyOf(ids);
        Map<String, Integer> claimedTimes = new ConcurrentHashMap<>();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        ExecutorService workers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < 8; w++) {
                running.add(workers.submit(() -> {
                    while (!claimedTimes.keySet().containsAll(submitted)) {
                        JsonPath answer = worker().contentType("application/json")
                                .body("{\"types\":[\"thumbnail\"],\"max\":10,\"wait\":\"1s\"}").post("/api/v1/claims")
                                .then().statusCode(200).extract().jsonPath();
                        List<Map<String, Object>> claims = answer.getList("claims");
                        if (claims.isEmpty()) {
                            continue;
                        }
                        // Up to ten completions one after another: the claims are renewed meanwhile (3 s leases).
                        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.WORKER_KEY,
                                claims.stream().map(claim -> (String) claim.get("claimId")).toList())) {
                            for (Map<String, Object> claim : claims) {
                                claimedTimes.merge((String) claim.get("taskId"), 1, Integer::sum);
                                tokens.add(((Number) claim.get("fencingToken")).longValue());
                                complete((String) claim.get("claimId"));
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : running) {
                worker.get();
            }
        } finally {
            workers.shutdownNow();
        }
        assertEquals(submitted, claimedTimes.keySet(), "every task was claimed");
        assertEquals(Set.of(1), new HashSet<>(claimedTimes.values()), "no task was claimed twice");
        assertEquals(Set.of(1L), new HashSet<>(tokens));
        for (String id : ids) {
            assertEquals(TaskStatus.SUCCEEDED, task(UUID.fromString(id)).status());
        }
    }

    private static RequestSpecification worker() {
        return given().auth().oauth2(ApiKeysForTests.WORKER_KEY);
    }

    private static UUID submit(String type, String payload) {
        return UUID.fromString(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"" + type + "\",\"payload\":" + payload + "}").post("/api/v1/tasks").then()
                .statusCode(201).extract().path("id"));
    }

    /** One claim of the type, waiting for it as long as the test allows; its fields at the root. */
    private static JsonPath claimOne(String type) {
        return WorkerApiCalls.claimOne(ApiKeysForTests.WORKER_KEY, type, WAIT);
    }

    private static void complete(String claimId) {
        complete(claimId, "{}");
    }

    private static void complete(String claimId, String result) {
        worker().contentType("application/json").body("{\"result\":" + result + "}")
                .post("/api/v1/claims/" + claimId + "/complete").then().statusCode(200);
    }

    private Task task(UUID id) {
        return queries.find(id).orElseThrow();
    }
}

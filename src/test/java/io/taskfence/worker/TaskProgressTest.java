package io.taskfence.worker;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Task;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.WorkerApiCalls;

/**
 * Progress from running attempts (DESIGN.md, "Task lifecycle", "Progress"): a local handler's reports are coalesced to
 * the latest, written at most once a second per task and before the attempt's end; a remote worker's are taken while
 * its claim holds (409 after); the task's JSON shows {@code progress} and {@code progressAt}; the next claim clears
 * them; a {@code ?wait=} read with {@code progressAfter} answers on progress, one without it does not.
 */
@QuarkusTest
@TestServers
@TestProfile(TimedAndProgressingTypes.class)
class TaskProgressTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    TaskQueries queries;
    @Inject
    ProgressingHandler handler;
    @Inject
    ProgressWritesSeen writes;

    @Test
    void aHandlersManyReportsAreWrittenAsTheLatestAtMostOnceASecond() throws InterruptedException {
        UUID id = submit("{\"type\":\"progressing\",\"payload\":{\"reports\":500}}");
        assertTrue(handler.awaitReported(id, 1, WAIT), "the handler ran and reported");
        Task shown = await().atMost(WAIT).until(() -> task(id),
                task -> task.progress() != null && task.progress().path("done").asInt() == 500);
        assertEquals(500, shown.progress().path("total").asInt());
        assertEquals(TaskStatus.PROCESSING, shown.status(), "progress is no status change");
        assertTrue(shown.progressAt() != null && !shown.progressAt().isBefore(shown.createdAt()), shown.toString());

        List<ProgressWritesSeen.Write> written = writes.of(id);
        assertTrue(written.size() <= 3, "500 reports made " + written.size() + " writes, not a handful");
        for (int i = 1; i < written.size(); i++) {
            long gap = TimeUnit.NANOSECONDS.toMillis(written.get(i).nanoTime() - written.get(i - 1).nanoTime());
            assertTrue(gap >= 990, "two writes of the task's progress " + gap + " ms apart: " + written);
        }
        handler.release(id);
        Task done = await().atMost(WAIT).until(() -> task(id), task -> task.status() == TaskStatus.SUCCEEDED);
        assertEquals(500, done.progress().path("done").asInt(), "an ended task keeps its last progress");
    }

    @Test
    void anAttemptsLastReportIsWrittenBeforeItsEnd() {
        // Report 1 is written by the ticker; reports 2 and 3 and the end come at once, within the second after it, in
        // which the ticker may not write the task again: the end writes report 3 before it.
        UUID id = submit("{\"type\":\"progressing\",\"payload\":{\"reports\":1,\"reportsAfterRelease\":2}}");
        await().atMost(WAIT).until(() -> writes.of(id).size() == 1);
        handler.release(id);
        Task done = await().atMost(WAIT).until(() -> task(id), task -> task.status() == TaskStatus.SUCCEEDED);
        assertEquals(3, done.progress().path("done").asInt(), done.toString());
        List<ProgressWritesSeen.Write> written = writes.of(id);
        assertEquals(2, written.size(), written.toString());
        long gap = TimeUnit.NANOSECONDS.toMillis(written.get(1).nanoTime() - written.get(0).nanoTime());
        // Only a machine stalled for a second between the release and the end lets the ticker take report 3.
        assertTrue(!written.get(1).byTicker() || gap >= 990, "report 3 was written by the ticker " + gap
                + " ms after report 1, not by the end: " + written);
    }

    @Test
    void theNextAttemptsClaimClearsTheProgressOfTheOneBefore() throws InterruptedException {
        UUID id = submit("{\"type\":\"progressing\",\"payload\":{\"reports\":2,\"failFirst\":true},\"maxAttempts\":2}");
        assertTrue(handler.awaitReported(id, 2, WAIT), "attempt 2 ran");
        // Attempt 2 reported 2 of 2 as well; until it is written, nothing of attempt 1 may show.
        Task running = await().atMost(WAIT).until(() -> task(id), task -> task.progress() != null);
        assertEquals(2, running.attempt());
        assertEquals(2, running.progress().path("attempt").asInt(), "attempt 1's progress was cleared: " + running);
        handler.release(id);
        await().atMost(WAIT).until(() -> task(id).status(), TaskStatus.SUCCEEDED::equals);
    }

    @Test
    void aRemoteWorkersReportShowsInTheTaskAndIsRefusedOnceItsClaimEnded() {
        UUID id = submit("{\"type\":\"render\",\"payload\":{}}");
        JsonPath claim = WorkerApiCalls.claimOne(ApiKeysForTests.ANY_WORKER_KEY, "render", WAIT);
        assertEquals(id.toString(), claim.getString("taskId"));
        String claimPath = "/api/v1/claims/" + claim.getString("claimId");
        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.ANY_WORKER_KEY,
                List.of(claim.getString("claimId")))) {
            reportsAreShownAndChecked(id, claimPath);
        }

        // A report and at once the end: held back (within the second of the one before, if that was written within
        // it), it is written before the end all the same.
        worker().contentType("application/json").body("{\"progress\":{\"done\":41}}").post(claimPath + "/progress")
                .then().statusCode(204);
        worker().contentType("application/json").body("{\"result\":{}}").post(claimPath + "/complete").then()
                .statusCode(200);
        assertEquals(41, task(id).progress().path("done").asInt(), "the last report before the end was kept");
        worker().contentType("application/json").body("{\"progress\":{\"done\":100}}").post(claimPath + "/progress").then()
                .statusCode(409).body("title", is("Claim Superseded"));
        assertEquals(41, task(id).progress().path("done").asInt(), "a refused report changed nothing");
    }

    /** A report of the claim at {@code claimPath} shows in task {@code id} and its listings; bad ones are refused. */
    private void reportsAreShownAndChecked(UUID id, String claimPath) {
        long sent = System.nanoTime();
        worker().contentType("application/json").body("{\"progress\":{\"done\":40,\"total\":100,\"message\":\"page 40\"}}")
                .post(claimPath + "/progress").then().statusCode(204);
        Task shown = await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> task(id),
                task -> task.progress() != null);
        System.out.printf("a remote worker's report showed in the task %d ms after it was sent%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent));
        assertEquals("page 40", shown.progress().path("message").asText());
        submitter().get("/api/v1/tasks/" + id).then().statusCode(200).body("progress.done", is(40))
                .body("progressAt", is(shown.progressAt().toString()));
        // A listing has progressAt, and progress only when asked for, as payload and result.
        String listed = "items.find { it.id == '" + id + "' }";
        submitter().get("/api/v1/tasks?type=render&limit=100").then().statusCode(200)
                .body(listed + ".progressAt", is(shown.progressAt().toString()))
                .body(listed + ".progress", org.hamcrest.Matchers.nullValue());
        submitter().get("/api/v1/tasks?type=render&limit=100&fields=progress").then().statusCode(200)
                .body(listed + ".progress.done", is(40));

        worker().contentType("application/json").body("{\"progress\":[1,2]}").post(claimPath + "/progress").then()
                .statusCode(400).contentType("application/problem+json").body(containsString("progress"));
        worker().contentType("application/json").body("{}").post(claimPath + "/progress").then().statusCode(400)
                .contentType("application/problem+json").body(containsString("progress"));
        worker().contentType("application/json").body("{\"progress\":{\"text\":\"a\\u0000b\"}}")
                .post(claimPath + "/progress").then().statusCode(422).body("detail", containsString("U+0000"));
        worker().contentType("application/json").body("{\"progress\":{\"text\":\"" + "x".repeat(4_100) + "\"}}")
                .post(claimPath + "/progress").then().statusCode(413).body("detail", containsString("4096"));
    }

    @Test
    void aWaitWithProgressAfterAnswersOnProgressAndOneWithoutItDoesNot() throws Exception {
        UUID id = submit("{\"type\":\"render\",\"payload\":{}}");
        JsonPath claim = WorkerApiCalls.claimOne(ApiKeysForTests.ANY_WORKER_KEY, "render", WAIT);
        String claimPath = "/api/v1/claims/" + claim.getString("claimId");
        Instant createdAt = task(id).createdAt();
        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.ANY_WORKER_KEY,
                List.of(claim.getString("claimId")))) {
            waitForProgress(id, claimPath, createdAt);
        }
        // The end may carry the attempt's last report: written before it, on whichever replica takes the end.
        worker().contentType("application/json").body("{\"result\":{},\"progress\":{\"done\":9}}")
                .post(claimPath + "/complete").then().statusCode(200);
        assertEquals(9, task(id).progress().path("done").asInt(), "the report the end carried");
    }

    private void waitForProgress(UUID id, String claimPath, Instant createdAt) throws Exception {

        CompletableFuture<JsonPath> onProgress = CompletableFuture.supplyAsync(() -> submitter()
                .get("/api/v1/tasks/" + id + "?wait=30s&progressAfter=" + createdAt).then().statusCode(200)
                .extract().jsonPath());
        CompletableFuture<Long> endOnly = CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            submitter().get("/api/v1/tasks/" + id + "?wait=2s").then().statusCode(200).body("status", is("PROCESSING"));
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        });
        // Nothing to answer yet: after 300 ms both wait, registered in all likelihood. One that registered after the
        // report would answer it at once from its read, so this pause only decides which path the test takes.
        Thread.sleep(300);
        assertTrue(!onProgress.isDone() && !endOnly.isDone(), "no progress yet, no end: both wait");
        worker().contentType("application/json").body("{\"progress\":{\"done\":1}}").post(claimPath + "/progress").then()
                .statusCode(204);

        JsonPath answered = onProgress.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, answered.getInt("progress.done"), answered.prettify());
        assertTrue(endOnly.get(WAIT.toSeconds(), TimeUnit.SECONDS) >= 1_900, "a wait without progressAfter waits on");

        // Progress written after the instant already: answered at once.
        String progressAt = answered.getString("progressAt");
        submitter().get("/api/v1/tasks/" + id + "?wait=30s&progressAfter=" + createdAt).then().statusCode(200)
                .body("progressAt", is(progressAt));
        submitter().get("/api/v1/tasks/" + id + "?wait=1s&progressAfter=yesterday").then().statusCode(400)
                .contentType("application/problem+json").body(containsString("progressAfter"));
        submitter().get("/api/v1/tasks/" + id + "?progressAfter=" + createdAt).then().statusCode(400)
                .contentType("application/problem+json").body(containsString("wait"));
    }

    private static RequestSpecification submitter() {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY);
    }

    private static RequestSpecification worker() {
        return given().auth().oauth2(ApiKeysForTests.ANY_WORKER_KEY);
    }

    private static UUID submit(String body) {
        return UUID.fromString(submitter().contentType("application/json").body(body).post("/api/v1/tasks").then()
                .statusCode(201).extract().path("id"));
    }

    private Task task(UUID id) {
        return queries.find(id).orElseThrow();
    }
}

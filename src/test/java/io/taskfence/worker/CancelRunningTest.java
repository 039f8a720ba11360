package io.taskfence.worker;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.taskfence.handlers.builtin.LocalHookServer;
import io.taskfence.task.Sql;
import io.taskfence.task.Task;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A running task cancelled over REST: the answer is CANCELLED at once, the worker interrupts the handler at its
 * next heartbeat (refused: the cancel voided the claim) and writes nothing more to the task; the {@code http}
 * handler drops its call. Finished tasks still cannot be cancelled, nor another key's. Cancels racing the
 * workers' completions leave every task either SUCCEEDED with its result or CANCELLED without one.
 */
@QuarkusTest
@TestServers
@TestProfile(WorkersWithHookServer.class)
class CancelRunningTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    GuardedRunHandler handler;
    @Inject
    TaskQueries queries;
    @Inject
    TaskTransitions transitions;
    @Inject
    DataSource db;
    @Inject
    MeterRegistry metrics;
    /** Injected by {@link LocalHookServer}. */
    HttpServer server;

    @Test
    void aRunningTaskCancelledOverRestIsInterruptedAndItsWorkerWritesNothingAfter() throws Exception {
        double runningCancels = count("taskfence.task.cancelled.running", "guarded-run");
        double succeeded = transitions("SUCCEEDED", "guarded-run");
        double failed = transitions("FAILED", "guarded-run") + transitions("DEAD", "guarded-run");
        long lostRuns = runs("guarded-run", "lost");
        double lapsed = lapsedWhileRunning("guarded-run");
        UUID id = submit(ApiKeysForTests.SUBMIT_KEY, "guarded-run", "{\"blockFirst\":true}");
        assertTrue(handler.awaitStart(id, 1, WAIT), "the task never started");

        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then()
                .statusCode(404).contentType("application/problem+json");
        assertEquals(TaskStatus.PROCESSING, status(id), "another key's cancel changed the task");

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then()
                .statusCode(200).body("status", is("CANCELLED")).body("attempt", is(1));
        String afterCancel = rowText(id);

        assertTrue(handler.awaitInterrupt(id, 1, WAIT), "the handler of the cancelled task was not interrupted");
        // The run is timed as "lost" once the worker has decided to record nothing; a worker that recorded its
        // outcome would time it as that outcome instead, and this wait would fail.
        await("the worker gives the run up").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> runs("guarded-run", "lost") == lostRuns + 1);

        assertEquals(1, handler.runsOf(id).size(), "runs: " + handler.runsOf(id));
        assertTrue(handler.runsOf(id).getFirst().interrupted(), "runs: " + handler.runsOf(id));
        assertEquals(afterCancel, rowText(id), "the row changed after the cancel");
        Task task = queries.find(id).orElseThrow();
        assertEquals(TaskStatus.CANCELLED, task.status());
        assertEquals(null, task.lastError(), "the interrupted attempt wrote its error");
        assertTrue(resultIsNull(id), "the cancelled task has a result");
        assertEquals(succeeded, transitions("SUCCEEDED", "guarded-run"), "a completion was counted");
        assertEquals(failed, transitions("FAILED", "guarded-run") + transitions("DEAD", "guarded-run"),
                "a failure was counted");
        assertEquals(runningCancels + 1, count("taskfence.task.cancelled.running", "guarded-run"),
                "cancels of running tasks");
        // The refused heartbeat stopped the handler, not the lease running out here after it.
        assertEquals(lapsed, lapsedWhileRunning("guarded-run"), "the attempt's lease lapsed instead");
    }

    /** A cancel whose message no replica hears (here: none is sent) is noticed at the next heartbeat. */
    @Test
    void aCancelWithoutItsSignalIsNoticedAtTheNextHeartbeat() throws Exception {
        long lostRuns = runs("guarded-run", "lost");
        UUID id = submit(ApiKeysForTests.SUBMIT_KEY, "guarded-run", "{\"blockFirst\":true}");
        assertTrue(handler.awaitStart(id, 1, WAIT), "the task never started");

        assertEquals(TaskStatus.CANCELLED, transitions.cancel(id).orElseThrow().status());
        String afterCancel = rowText(id);

        assertTrue(handler.awaitInterrupt(id, 1, WAIT), "the handler of the cancelled task was not interrupted");
        await("the worker gives the run up").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> runs("guarded-run", "lost") == lostRuns + 1);
        assertEquals(afterCancel, rowText(id), "the row changed after the cancel");
    }

    @Test
    void aSleepingTaskCancelledOverRestStopsSleeping() {
        long lostRuns = runs("sleep", "lost");
        UUID id = submit(ApiKeysForTests.SUBMIT_KEY, "sleep", "{\"ms\":3600000}");
        await("the task to run").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> status(id) == TaskStatus.PROCESSING);

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then()
                .statusCode(200).body("status", is("CANCELLED"));
        String afterCancel = rowText(id);

        // An hour's sleep that ends within the wait was interrupted.
        await("the sleep to be interrupted").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> runs("sleep", "lost") == lostRuns + 1);
        assertEquals(afterCancel, rowText(id), "the row changed after the cancel");
    }

    @Test
    void finishedTasksStillCannotBeCancelled() {
        UUID succeeded = submit(ApiKeysForTests.SUBMIT_KEY, "noop", "{}");
        UUID dead = submitTask(ApiKeysForTests.SUBMIT_KEY,
                "{\"type\":\"flaky\",\"payload\":{\"failTimes\":5},\"maxAttempts\":1}");
        await("both to finish").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> status(succeeded) == TaskStatus.SUCCEEDED && status(dead) == TaskStatus.DEAD);

        for (UUID id : List.of(succeeded, dead)) {
            String before = rowText(id);
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then()
                    .statusCode(409).contentType("application/problem+json")
                    .body("detail", containsString("it is " + status(id)))
                    .body("detail", containsString("only a task that is WAITING, PENDING, ENQUEUED, PROCESSING or FAILED"));
            assertEquals(before, rowText(id), "a refused cancel changed the row");
        }
    }

    /** The {@code http} handler's call to a server that never finishes its answer is dropped when the task is cancelled. */
    @Test
    void aCancelledHttpTaskClosesItsConnection() throws Exception {
        CountDownLatch called = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CountDownLatch testOver = new CountDownLatch(1);
        server.createContext("/hang", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, 0); // chunked: the answer goes on until the client leaves
            called.countDown();
            try (OutputStream body = exchange.getResponseBody()) {
                while (!testOver.await(50, TimeUnit.MILLISECONDS)) {
                    body.write(' ');
                    body.flush(); // fails once the client has closed or reset the connection
                }
            } catch (IOException e) {
                closed.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            long lostRuns = runs("http", "lost");
            UUID id = submitTask(ApiKeysForTests.SUBMIT_KEY, "{\"type\":\"http\",\"payload\":{\"url\":"
                    + "\"http://127.0.0.1:" + server.getAddress().getPort() + "/hang\"}}");
            assertTrue(called.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the call never reached the server");

            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then()
                    .statusCode(200).body("status", is("CANCELLED"));

            assertTrue(closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS),
                    "the server still had its connection after the task was cancelled");
            await("the worker gives the run up").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .until(() -> runs("http", "lost") == lostRuns + 1);
            assertEquals(TaskStatus.CANCELLED, status(id));
        } finally {
            testOver.countDown();
            server.removeContext("/hang");
        }
    }

    /**
     * Cancels from many threads racing the workers: each thread submits tasks and cancels each one while the
     * workers dispatch, claim and complete it (noop is done at once). Each task ends SUCCEEDED with noop's result
     * (its payload) while its cancel was refused, or CANCELLED without a result while its cancel was answered 200.
     */
    @Test
    void cancelsRacingCompletionsLeaveEachTaskSucceededOrCancelledNeverBoth() throws Exception {
        double runningBefore = count("taskfence.task.cancelled.running", "noop");
        List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
        Map<UUID, Integer> answers = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> racers = new ArrayList<>();
            for (int r = 0; r < 8; r++) {
                int racer = r;
                racers.add(pool.submit(() -> {
                    UUID held = null; // every other task is cancelled a step later, to meet more of them running or done
                    for (int i = 0; i < 15; i++) {
                        UUID id = submit(ApiKeysForTests.SUBMIT_KEY, "noop", "{\"n\":" + (racer * 15 + i) + "}");
                        ids.add(id);
                        if (held != null) {
                            answers.put(held, cancel(held));
                            held = null;
                        }
                        if (i % 2 == 0) {
                            answers.put(id, cancel(id));
                        } else {
                            held = id;
                        }
                    }
                    if (held != null) {
                        answers.put(held, cancel(held));
                    }
                }));
            }
            for (Future<?> racer : racers) {
                racer.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(120, ids.size());
        assertEquals(Set.copyOf(ids), answers.keySet(), "tasks never cancelled");
        Set<TaskStatus> ends = Set.of(TaskStatus.SUCCEEDED, TaskStatus.CANCELLED);
        await("every task to finish").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> ids.stream().allMatch(id -> ends.contains(status(id))));

        int cancelled = 0;
        for (UUID id : ids) {
            Task task = queries.find(id).orElseThrow();
            if (task.status() == TaskStatus.CANCELLED) {
                cancelled++;
                assertEquals(200, answers.get(id), "task " + id + " is CANCELLED, but its cancel was refused");
                assertTrue(resultIsNull(id), "cancelled task " + id + " has a result");
            } else {
                assertEquals(409, answers.get(id), "task " + id + " SUCCEEDED, but its cancel was answered");
                assertTrue(task.result() != null && task.result().has("n"), "task " + id + " lost its result");
            }
        }
        System.out.printf("race: %d of %d cancelled, %.0f of them while running%n", cancelled, ids.size(),
                count("taskfence.task.cancelled.running", "noop") - runningBefore);
    }

    // ---- plumbing

    private static int cancel(UUID id) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).statusCode();
    }

    private static UUID submit(String key, String type, String payload) {
        return submitTask(key, "{\"type\":\"" + type + "\",\"payload\":" + payload + "}");
    }

    private static UUID submitTask(String key, String body) {
        Response created = given().auth().oauth2(key).contentType("application/json").body(body)
                .post("/api/v1/tasks");
        created.then().statusCode(201);
        return UUID.fromString(created.path("id"));
    }

    private boolean resultIsNull(UUID id) {
        return Sql.count(db, "select count(*) from tasks where id = ? and result is null", id) == 1;
    }

    private TaskStatus status(UUID id) {
        return queries.find(id).orElseThrow().status();
    }

    /** The whole row as text, to see that nothing in it changed. */
    private String rowText(UUID id) {
        StringBuilder text = new StringBuilder();
        Sql.rows(db, "select t::text from tasks t where id = '" + id + "'", row -> text.append(row.getString(1)));
        return text.toString();
    }

    private double count(String name, String type) {
        Counter counter = metrics.find(name).tag("type", type).counter();
        return counter == null ? 0 : counter.count();
    }

    private double lapsedWhileRunning(String type) {
        Counter counter = metrics.find("taskfence.task.lease.lapsed").tags("type", type, "stage", "running").counter();
        return counter == null ? 0 : counter.count();
    }

    private double transitions(String to, String type) {
        Counter counter = metrics.find("taskfence.transitions").tags("to", to, "type", type).counter();
        return counter == null ? 0 : counter.count();
    }

    private long runs(String type, String outcome) {
        Timer timer = metrics.find("taskfence.task.run").tags("type", type, "outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }
}

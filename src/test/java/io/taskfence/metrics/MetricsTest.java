package io.taskfence.metrics;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.Sql;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.RunningTasksProfile;

/**
 * What {@code /q/metrics} says while tasks run: the transitions counted by the right amounts, the wait
 * and run timers, the gauges of tasks per status (after their cache period) and of the queue. Other
 * tests in this JVM count too, so the counters are compared before and after, never absolutely.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class MetricsTest {

    private static final Duration FINISH_WITHIN = Duration.ofSeconds(30);
    /** The gauges' cache period, plus room for a slow scrape. */
    private static final Duration GAUGES_WITHIN = BacklogGauges.MAX_AGE.plusSeconds(10);

    @TestHTTPResource(value = "/", management = true)
    URI management;
    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    DataSource db;

    /**
     * Other test classes leave tasks in the shared table (PENDING ones due later, ENQUEUED ones without a
     * message, PROCESSING ones whose lease lapses); run here, they would move the counters during the
     * test. They are set aside (cancelled behind the service's back, so uncounted) and the running ones
     * finished before a test reads its first values.
     */
    @BeforeEach
    void setOtherTasksAside() {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
            Sql.run(db, "update tasks set status = 'CANCELLED', lease_until = null "
                    + "where status in ('PENDING', 'ENQUEUED', 'FAILED')");
            return Sql.count(db, "select count(*) from tasks where status = 'PROCESSING'") == 0;
        });
    }

    @Test
    void transitionsAndTimersMoveByWhatTheTasksDid() {
        Scrape before = Scrape.now(management);
        List<UUID> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tasks.add(UUID.fromString(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                    .body("{\"type\":\"noop\",\"payload\":{\"n\":" + i + "}}").post("/api/v1/tasks").then()
                    .statusCode(201).extract().path("id")));
        }
        tasks.add(flaky(1, 3));
        tasks.add(flaky(1, 3));
        awaitAll(tasks, TaskStatus.SUCCEEDED);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Scrape after = Scrape.now(management);
            for (String to : List.of("PENDING", "ENQUEUED", "PROCESSING", "SUCCEEDED")) {
                assertEquals(5, delta(before, after, "taskfence_transitions_total", "to", to, "type", "noop"),
                        "noop → " + to);
            }
            assertEquals(2, delta(before, after, "taskfence_transitions_total", "to", "PENDING", "type", "flaky"));
            assertEquals(4, delta(before, after, "taskfence_transitions_total", "to", "ENQUEUED", "type", "flaky"));
            assertEquals(4, delta(before, after, "taskfence_transitions_total", "to", "PROCESSING", "type", "flaky"));
            assertEquals(2, delta(before, after, "taskfence_transitions_total", "to", "FAILED", "type", "flaky"));
            assertEquals(2, delta(before, after, "taskfence_transitions_total", "to", "SUCCEEDED", "type", "flaky"));
            assertEquals(0, delta(before, after, "taskfence_transitions_total", "to", "DEAD", "type", "flaky"));

            // The wait is recorded at a first attempt's claim; the run of every attempt.
            assertEquals(5, delta(before, after, "taskfence_task_wait_seconds_count", "type", "noop"));
            assertEquals(2, delta(before, after, "taskfence_task_wait_seconds_count", "type", "flaky"));
            assertEquals(5, delta(before, after, "taskfence_task_run_seconds_count", "type", "noop", "outcome", "success"));
            assertEquals(2, delta(before, after, "taskfence_task_run_seconds_count", "type", "flaky", "outcome", "failure"));
            assertEquals(2, delta(before, after, "taskfence_task_run_seconds_count", "type", "flaky", "outcome", "success"));
            assertTrue(after.sum("taskfence_task_wait_seconds_bucket", "type", "noop", "le", "+Inf") >= 5,
                    "the wait is published as a histogram");
        });

        awaitGaugeMatchesTable(TaskStatus.SUCCEEDED);
        Scrape now = Scrape.now(management);
        for (TaskStatus status : TaskStatus.values()) {
            assertTrue(now.has("taskfence_tasks") && !Double.isNaN(now.sum("taskfence_tasks", "status", status.name())),
                    "a gauge for " + status);
        }
        assertTrue(now.has("taskfence_queue_depth"), "queue depth gauge");
        assertTrue(now.has("taskfence_queue_pending"), "queue pending gauge");
        assertEquals(0, now.sum("taskfence_queue_pending"), "every message read was finished");
    }

    @Test
    void exhaustedAndPermanentlyFailingTasksCountFailedAttemptsAndDeadTasks() {
        Scrape before = Scrape.now(management);
        List<UUID> tasks = List.of(flaky(5, 2), flaky(5, 2), flaky(-1, 5)); // -1: a permanent failure
        awaitAll(tasks, TaskStatus.DEAD);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Scrape after = Scrape.now(management);
            assertEquals(2, delta(before, after, "taskfence_transitions_total", "to", "FAILED", "type", "flaky"));
            assertEquals(3, delta(before, after, "taskfence_transitions_total", "to", "DEAD", "type", "flaky"));
            assertEquals(0, delta(before, after, "taskfence_transitions_total", "to", "SUCCEEDED", "type", "flaky"));
            assertEquals(4, delta(before, after, "taskfence_task_run_seconds_count", "type", "flaky", "outcome", "failure"));
            assertEquals(1, delta(before, after, "taskfence_task_run_seconds_count", "type", "flaky",
                    "outcome", "permanent_failure"));
        });
        awaitGaugeMatchesTable(TaskStatus.DEAD);
        awaitGaugeMatchesTable(TaskStatus.FAILED);
    }

    /** Submitted behind the API (which would refuse a negative failTimes), with its own attempts. */
    private UUID flaky(int failTimes, int maxAttempts) {
        return transitions.submit(new NewTask("flaky", JsonNodeFactory.instance.objectNode().put("failTimes", failTimes),
                maxAttempts, 0, null, null, null)).task().id();
    }

    private void awaitAll(List<UUID> ids, TaskStatus status) {
        await().atMost(FINISH_WITHIN).pollInterval(Duration.ofMillis(200))
                .until(() -> ids.stream().allMatch(id -> queries.find(id).orElseThrow().status() == status));
    }

    private void awaitGaugeMatchesTable(TaskStatus status) {
        await().atMost(GAUGES_WITHIN).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            long inTable = Sql.count(db, "select count(*) from tasks where status = ?", status.name());
            assertEquals(inTable, Scrape.now(management).sum("taskfence_tasks", "status", status.name()), "tasks " + status);
        });
    }

    private static double delta(Scrape before, Scrape after, String name, String... labels) {
        double moved = after.sum(name, labels) - before.sum(name, labels);
        assertFalse(Double.isNaN(moved), name);
        return moved;
    }
}

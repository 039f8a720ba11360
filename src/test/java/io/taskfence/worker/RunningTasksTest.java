package io.taskfence.worker;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.lock.LockSettings;
import io.taskfence.task.Sql;
import io.taskfence.task.Task;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** Tasks submitted to one replica run to their end: dispatched once, claimed once, retried as asked. */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class RunningTasksTest {

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    DataSource db;
    @Inject
    RedisDataSource redis;
    @Inject
    LockSettings settings;

    @Test
    void submittedNoopTasksAllSucceedOnTheFirstAttemptEnqueuedOnce() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ids.add(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                    .body("{\"type\":\"noop\",\"payload\":{\"n\":" + i + "}}").post("/api/v1/tasks").then()
                    .statusCode(201).extract().path("id"));
        }
        awaitAll(ids, TaskStatus.SUCCEEDED, Duration.ofSeconds(60));
        for (String id : ids) {
            assertEquals(1, queries.find(UUID.fromString(id)).orElseThrow().attempt(), "task " + id);
            assertEquals(1, Sql.count(db, "select enqueues from tasks where id = ?", UUID.fromString(id)),
                    "task " + id + " was dispatched more than once");
        }
        assertTrue(queries.find(UUID.fromString(ids.getFirst())).orElseThrow().result().get("n").isInt(),
                "noop's result is its payload");
    }

    @Test
    void aSubmittedTaskOnAnIdleSystemStartsWithoutWaitingForTheTimer() {
        long start = System.nanoTime();
        String id = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201)
                .extract().path("id");
        awaitAll(List.of(id), TaskStatus.SUCCEEDED, Duration.ofSeconds(10));
        System.out.printf("submit to SUCCEEDED: %d ms%n", Duration.ofNanos(System.nanoTime() - start).toMillis());
    }

    @Test
    void flakyTasksSucceedAfterTheirFailuresAndExhaustedOnesAreDead() {
        UUID recovers = submit("flaky", JsonNodeFactory.instance.objectNode().put("failTimes", 2), 5);
        UUID exhausted = submit("flaky", JsonNodeFactory.instance.objectNode().put("failTimes", 5), 2);

        awaitAll(List.of(recovers.toString()), TaskStatus.SUCCEEDED, Duration.ofSeconds(30));
        awaitAll(List.of(exhausted.toString()), TaskStatus.DEAD, Duration.ofSeconds(30));
        assertEquals(3, queries.find(recovers).orElseThrow().attempt());
        Task dead = queries.find(exhausted).orElseThrow();
        assertEquals(2, dead.attempt());
        assertTrue(dead.lastError().contains("attempt 2 of 5 planned failures"), dead.lastError());
    }

    @Test
    void everyTaskStillFinishesAfterRedisLosesAllOfThisDeploymentsKeys() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(submit("sleep", JsonNodeFactory.instance.objectNode().put("ms", 100), 5).toString());
        }
        Thread.sleep(1_000); // some are done, some enqueued, some running (200 x 100 ms on 8 workers takes 2.5 s)
        long unfinished = ids.stream().filter(id -> queries.find(UUID.fromString(id)).orElseThrow().status()
                != TaskStatus.SUCCEEDED).count();
        forgetAllKeys(); // as FLUSHDB would, for this deployment's keys only (other test runs share the server)
        assertTrue(unfinished > 0, "every task had finished before Redis lost its keys: the test proves nothing");

        awaitAll(ids, TaskStatus.SUCCEEDED, Duration.ofSeconds(90));
        long fence = queries.newestFence("dispatch");
        String counter = redis.value(String.class).get(settings.keyPrefix() + ":fence:{dispatch}");
        assertTrue(counter != null && Long.parseLong(counter) >= fence,
                "the token counter " + counter + " was raised back above the fence " + fence);
    }

    private UUID submit(String type, ObjectNode payload, int maxAttempts) {
        return transitions.submit(new NewTask(type, payload, maxAttempts, 0, null, null, null)).task().id();
    }

    private void forgetAllKeys() {
        List<String> keys = redis.key().keys(settings.keyPrefix() + ":*");
        if (!keys.isEmpty()) {
            redis.key().del(keys.toArray(String[]::new));
        }
    }

    private void awaitAll(List<String> ids, TaskStatus status, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(200)).until(() -> ids.stream()
                .allMatch(id -> queries.find(UUID.fromString(id)).orElseThrow().status() == status));
    }
}

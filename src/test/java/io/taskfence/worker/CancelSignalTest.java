package io.taskfence.worker;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.lock.LockSettings;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * With a lease of ten minutes the next heartbeat is minutes away, so a running task cancelled over REST and
 * interrupted within the test's wait was stopped by the cancel's message ({@link CancelSignals}), not by a
 * heartbeat nor by its lease running out.
 */
@QuarkusTest
@TestServers
@TestProfile(CancelSignalTest.LongLease.class)
class CancelSignalTest {

    private static final Duration LEASE = Duration.ofMinutes(10);
    /** Far shorter than the heartbeat period (a third of the lease) and the lease's end here. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    public static final class LongLease implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
            settings.put("taskfence.worker.lease", LEASE.toMillis() + "ms");
            settings.put(GuardedRunHandler.ENABLED, "true");
            return settings;
        }
    }

    @Inject
    GuardedRunHandler handler;
    @Inject
    TaskQueries queries;
    @Inject
    RedisDataSource redis;
    @Inject
    LockSettings settings;

    @Test
    void aRunningTaskCancelledOverRestIsInterruptedLongBeforeItsNextHeartbeat() throws Exception {
        String channel = CancelSignals.channel(settings.keyPrefix());
        await("the workers to subscribe").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> redis.execute("PUBSUB", "NUMSUB", channel).get(1).toLong() >= 1);
        String id = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"guarded-run\",\"payload\":{\"blockFirst\":true}}").post("/api/v1/tasks").then()
                .statusCode(201).extract().path("id");
        UUID taskId = UUID.fromString(id);
        assertTrue(handler.awaitStart(taskId, 1, WAIT), "the task never started");

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then()
                .statusCode(200).body("status", is("CANCELLED"));

        assertTrue(handler.awaitInterrupt(taskId, 1, WAIT),
                "the handler ran on after the cancel: the signal did not reach its worker");
        assertEquals(TaskStatus.CANCELLED, queries.find(taskId).orElseThrow().status());
    }
}

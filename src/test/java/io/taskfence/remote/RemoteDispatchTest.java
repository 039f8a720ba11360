package io.taskfence.remote;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.queue.TaskQueue;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.RunningTasksProfile;

/**
 * A backlog of the service's own types that fills the replicas' stream (no worker here takes it) does not hold back a
 * remote type's tasks: dispatch runs a batch of the remote types alone while it waits for room (DESIGN.md, "Queue
 * (Redis)").
 */
@QuarkusTest
@TestServers
@TestProfile(RemoteDispatchTest.FullStreamNoWorkers.class)
class RemoteDispatchTest {

    static final int MAX_QUEUE_DEPTH = 2;

    public static final class FullStreamNoWorkers implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
            settings.put("taskfence.worker.enabled", "false");
            settings.put("taskfence.dispatch.max-queue-depth", Integer.toString(MAX_QUEUE_DEPTH));
            return settings;
        }
    }

    @Inject
    TaskQueue queue;

    @Test
    void aRemoteTaskIsDispatchedWhileTheReplicasStreamIsFull() {
        List<String> local = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            local.add(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                    .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201)
                    .extract().path("id"));
        }
        await("the replicas' stream full").atMost(Duration.ofSeconds(20))
                .until(() -> queue.depth() == MAX_QUEUE_DEPTH);
        try {
            String remote = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                    .body("{\"type\":\"transcode\",\"payload\":{\"behind\":\"a full stream\"}}").post("/api/v1/tasks")
                    .then().statusCode(201).extract().path("id");
            List<Map<String, Object>> claims = List.of();
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (claims.isEmpty() && System.nanoTime() < end) {
                claims = given().auth().oauth2(ApiKeysForTests.WORKER_KEY).contentType("application/json")
                        .body("{\"types\":[\"transcode\"],\"wait\":\"5s\"}").post("/api/v1/claims").then().statusCode(200)
                        .extract().jsonPath().getList("claims");
            }
            assertEquals(List.of(remote), claims.stream().map(claim -> claim.get("taskId")).toList(),
                    "the remote task was dispatched behind a full stream of local ones");
            given().auth().oauth2(ApiKeysForTests.WORKER_KEY).contentType("application/json").body("{}")
                    .post("/api/v1/claims/" + claims.getFirst().get("claimId") + "/complete").then().statusCode(200);
            assertEquals(MAX_QUEUE_DEPTH, queue.depth(), "the local stream stayed within its bound");
        } finally {
            local.forEach(id -> given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + id + "/cancel"));
        }
    }
}

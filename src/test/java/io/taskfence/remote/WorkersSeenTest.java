package io.taskfence.remote;

import static io.restassured.RestAssured.given;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.WorkerApiCalls;
import io.taskfence.worker.RunningTasksProfile;

/**
 * The remote workers seen in the last hour (DESIGN.md, "Remote workers", "Workers seen"): each worker, by its key and
 * the name it claims with, shows the types it asked for, the claims it holds now, and when it last claimed a task,
 * sent a heartbeat and called; only admin keys list them.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class WorkersSeenTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aWorkerShowsItsTypesItsClaimsInHandAndWhenItLastClaimedAndBeat() {
        String type = "seen-" + UUID.randomUUID().toString().substring(0, 8);
        String busy = "busy-" + UUID.randomUUID().toString().substring(0, 8);
        String idle = "idle-" + UUID.randomUUID().toString().substring(0, 8);
        Instant before = Instant.now().minusSeconds(1);
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/" + type).then()
                .statusCode(201);
        for (int i = 0; i < 2; i++) {
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                    .body("{\"type\":\"" + type + "\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201);
        }
        List<String> claims = new ArrayList<>();
        long end = System.nanoTime() + WAIT.toNanos();
        while (claims.size() < 2 && System.nanoTime() < end) {
            claims.addAll(worker().body("{\"types\":[\"" + type + "\"],\"max\":2,\"wait\":\"5s\",\"worker\":\"" + busy
                    + "\"}").post("/api/v1/claims").then().statusCode(200).extract().jsonPath().getList("claims.claimId"));
        }
        assertEquals(2, claims.size(), "both tasks claimed");
        // The profile's leases are 3 s: the claims are renewed each second while the test looks at them.
        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.ANY_WORKER_KEY, claims)) {
            worker().body("{\"types\":[\"" + type + "\"],\"worker\":\"" + idle + "\"}").post("/api/v1/claims").then()
                    .statusCode(200);

            claims.forEach(claim -> worker().post("/api/v1/claims/" + claim + "/heartbeat").then().statusCode(200));
            Map<String, Object> seen = await().atMost(WAIT).until(() -> listed(busy),
                    worker -> worker != null && worker.get("lastHeartbeatAt") != null);
            assertEquals(ApiKeysForTests.ANY_WORKER_KEY_NAME, seen.get("key"));
            assertEquals(List.of(type), seen.get("types"));
            assertEquals(2, seen.get("claimsInHand"));
            assertTrue(!Instant.parse((String) seen.get("lastClaimAt")).isBefore(before), "last claim " + seen);
            assertTrue(!Instant.parse((String) seen.get("lastSeenAt")).isBefore(before), "last seen " + seen);
            Map<String, Object> waiting = await().atMost(WAIT).until(() -> listed(idle), worker -> worker != null);
            assertEquals(0, waiting.get("claimsInHand"));
            assertNull(waiting.get("lastClaimAt"), "a worker whose claims got nothing has not claimed: " + waiting);
            assertNull(waiting.get("lastHeartbeatAt"));
            assertNotNull(waiting.get("lastSeenAt"));

            worker().body("{\"result\":{}}").post("/api/v1/claims/" + claims.get(0) + "/complete").then().statusCode(200);
            assertEquals(1, listed(busy).get("claimsInHand"), "a completed claim is no longer in hand");
            worker().post("/api/v1/claims/" + claims.get(1) + "/release").then().statusCode(200);
            assertEquals(0, listed(busy).get("claimsInHand"));
        }

        // A made-up claim id is the client's text: refused, and no worker by its name is recorded.
        String forged = UUID.randomUUID() + ".1." + Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("remote:" + ApiKeysForTests.ANY_WORKER_KEY_NAME + ":forged-" + busy + "/x").getBytes(UTF_8));
        worker().post("/api/v1/claims/" + forged + "/heartbeat").then().statusCode(409);
        assertNull(listed("forged-" + busy), "a call that failed records no worker");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/workers").then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.ANY_WORKER_KEY).get("/api/v1/workers").then().statusCode(403);

        // The schema is shared with the other classes of this profile: the released task is cancelled and the type
        // taken back before the next one runs (a declared remote type and its PENDING task would be theirs too).
        String action = admin().contentType("application/json").body("{\"type\":\"" + type + "\"}")
                .post("/api/v1/tasks/actions/cancel").then().statusCode(202).extract().header("Location");
        await().atMost(WAIT).until(() -> admin().get(action).then().statusCode(200).extract().path("state"), "DONE"::equals);
        admin().delete("/api/v1/types/" + type).then().statusCode(204);
    }

    private static Map<String, Object> listed(String name) {
        JsonPath workers = admin().get("/api/v1/workers").then().statusCode(200).extract().jsonPath();
        return workers.getMap("workers.find { it.name == '" + name + "' }");
    }

    private static RequestSpecification worker() {
        return given().auth().oauth2(ApiKeysForTests.ANY_WORKER_KEY).contentType("application/json");
    }

    private static RequestSpecification admin() {
        return given().auth().oauth2(ApiKeysForTests.ADMIN_KEY);
    }
}

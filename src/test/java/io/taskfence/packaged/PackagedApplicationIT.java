package io.taskfence.packaged;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.path.json.JsonPath;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.ManagementPort;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.RedisKeySpace;

/**
 * The packaged artifact as built (the JVM jar here; the native binary when built with {@code -Dnative}),
 * in the prod profile with dispatch and workers on, against the real local Redis and PostgreSQL.
 *
 * <p>It is also the training run of the JVM's AOT cache: {@code scripts/dev.sh run} and {@code replicas} build with
 * the Maven profile {@code aot} ({@code quarkus.package.jar.aot.enabled}), and Quarkus records the jar while these
 * tests run against it, so the cache holds the classes and method profiles of what they do (docs/performance.md,
 * "Start-up: the AOT cache").
 */
@QuarkusIntegrationTest
@WithTestResource(RedisKeySpace.class)
@WithTestResource(PostgresSchema.class)
@WithTestResource(ApiKeysForTests.class)
@WithTestResource(ManagementPort.class)
class PackagedApplicationIT {

    /** The management interface's root (ManagementPort). */
    URI management;

    @Test
    void aSubmittedTaskRunsToSucceeded() {
        String id = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{\"hello\":\"native\"}}").post("/api/v1/tasks")
                .then().statusCode(201).extract().path("id");

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> "SUCCEEDED".equals(
                given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id).then().statusCode(200)
                        .extract().path("status")));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id).then()
                .body("result.hello", equalTo("native")).body("attempt", equalTo(1));
    }

    @Test
    void probesAreUpAndMetricsAndTheOpenApiDocumentAreServedOnTheManagementInterface() {
        for (String probe : new String[] { "live", "ready", "started" }) {
            given().get(management.resolve("/q/health/" + probe)).then().statusCode(200).body("status", equalTo("UP"));
        }
        given().get(management.resolve("/q/metrics")).then().statusCode(200)
                .body(containsString("taskfence_tasks{status=\"PENDING\"}"));
        // Counted once a job has taken its lock: the first dispatch runs a second after start-up.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> given().get(management.resolve("/q/metrics")).then()
                .body(containsString("taskfence_lock_acquisitions_total{lock=\"dispatch\"}")));
        given().get(management.resolve("/q/openapi")).then().statusCode(200).body(containsString("/api/v1/tasks"));
        given().get("/q/metrics").then().statusCode(404); // not on the API's port
    }

    /**
     * Off in production ({@code taskfence.handlers.demo.enabled} is true in the dev and test profiles only):
     * {@code sleep} and {@code flaky} are no task types, so a client cannot hold workers for an hour a task or
     * fill the table with failures.
     */
    @ParameterizedTest
    @ValueSource(strings = { "sleep", "flaky" })
    void theDemoTypesAreRefusedAndNotStored(String type) {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"" + type + "\",\"payload\":{}}").post("/api/v1/tasks").then()
                .statusCode(422).contentType("application/problem+json")
                .body("detail", allOf(containsString("no handler for task type '" + type + "'"),
                        containsString("registered types: [archive, callback, http, noop, ocr, resize, thumbnail, transcode]")));
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).queryParam("type", type).get("/api/v1/tasks").then()
                .statusCode(200).body("items", empty());
    }

    @Test
    void badInputIsAnsweredWithAProblemDetail() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"no-such-type\",\"payload\":{}}").post("/api/v1/tasks")
                .then().statusCode(422).contentType("application/problem+json")
                .body("detail", containsString("no-such-type"));
        given().contentType("application/json").body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks")
                .then().statusCode(401).contentType("application/problem+json");
    }

    /**
     * The paths a replica runs all day, walked {@code aot.training.rounds} times (once in the test command, ten
     * times in the AOT cache's training run, Maven profile {@code aot}): a batch of 1,000 noop tasks with a then
     * task and 50 single submissions, which dispatch enqueues and the workers claim and complete; then the reads of
     * the dashboard and of clients (the batch's counts, the listing's pages, a task and its history, the stats) and
     * the probes.
     */
    @Test
    void batchesAndSingleTasksAllSucceedAndTheReadsShowThem() {
        int rounds = Integer.getInteger("aot.training.rounds", 1);
        for (int round = 0; round < rounds; round++) {
            String items = IntStream.range(0, 1000)
                    .mapToObj(i -> "{\"type\":\"noop\",\"payload\":{\"item\":" + i + "}}")
                    .collect(Collectors.joining(","));
            JsonPath batch = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                    .body("{\"tasks\":[" + items + "],\"then\":{\"type\":\"noop\",\"payload\":{}}}")
                    .post("/api/v1/tasks/batch").then().statusCode(200).body("created", equalTo(1000))
                    .extract().jsonPath();
            List<String> singles = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                singles.add(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                        .body("{\"type\":\"noop\",\"payload\":{\"single\":" + i + "}}").post("/api/v1/tasks")
                        .then().statusCode(201).extract().path("id"));
            }
            String thenTask = batch.getString("batch.thenTaskId");
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + thenTask + "?wait=60s").then()
                    .statusCode(200).body("status", equalTo("SUCCEEDED"));
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/batches/" + batch.getString("batch.id"))
                    .then().statusCode(200).body("status", equalTo("COMPLETE")).body("succeeded", equalTo(1000));
            for (String id : singles) {
                given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id + "?wait=30s").then()
                        .statusCode(200).body("status", equalTo("SUCCEEDED"));
                given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id + "/events").then()
                        .statusCode(200);
            }
            int listed = 0;
            String after = null;
            do {
                JsonPath page = given().auth().oauth2(ApiKeysForTests.ADMIN_KEY)
                        .queryParam("batch", batch.getString("batch.id")).queryParam("limit", 100)
                        .queryParams(after == null ? Map.of() : Map.of("after", after))
                        .get("/api/v1/tasks").then().statusCode(200).extract().jsonPath();
                listed += page.getList("items").size();
                after = page.getString("next");
            } while (after != null);
            assertEquals(1000, listed, "the batch's items, listed page by page");
            given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/stats").then().statusCode(200);
            given().get(management.resolve("/q/health/ready")).then().statusCode(200);
        }
    }
}

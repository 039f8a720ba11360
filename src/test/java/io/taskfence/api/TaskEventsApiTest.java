package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** {@code GET /api/v1/tasks/{id}/events}: a task's history as its submitter (or an admin) reads it. */
@QuarkusTest
@TestServers
class TaskEventsApiTest {

    private static final String EVENTS = "/api/v1/tasks/{id}/events";

    @Test
    void aCancelAndARetryThroughTheApiAreInTheHistoryOldestFirst() {
        String id = as(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201).extract().path("id");
        as(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then().statusCode(200);
        as(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/retry", id).then().statusCode(200);
        // Refused (the task is PENDING): no row changes, so no event.
        as(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/retry", id).then().statusCode(409);

        as(ApiKeysForTests.SUBMIT_KEY).get(EVENTS, id).then().statusCode(200).contentType("application/json")
                .body("items", hasSize(3))
                .body("items.from", contains(nullValue(), is("PENDING"), is("CANCELLED")))
                .body("items.to", contains("PENDING", "CANCELLED", "PENDING"))
                .body("items.attempt", everyItem(is(0)))
                .body("items.worker", everyItem(nullValue()))
                .body("items.error", everyItem(nullValue()))
                .body("items.at", everyItem(notNullValue()))
                .body("items[0].keySet()", containsInAnyOrder("at", "from", "to", "attempt", "worker", "error", "note"));
        as(ApiKeysForTests.ADMIN_KEY).get(EVENTS, id).then().statusCode(200).body("items", hasSize(3));
    }

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskFixtures fixtures;

    /** The claim id names the pod that ran an attempt: operators see it, the task's tenant does not. */
    @Test
    void aSubmitKeySeesItsAttemptsButNotWhichReplicaRanThem() {
        String id = as(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201).extract().path("id");
        UUID task = UUID.fromString(id);
        fixtures.enqueue(List.of(task));
        // The first attempt's worker stops: recovery fails it when its lease has run out.
        transitions.claim(task, "taskfence-7d9f-pod/claim-1", Duration.ofMinutes(1)).orElseThrow();
        fixtures.age(task, Duration.ofMinutes(2));
        transitions.failExpiredLeases(TaskFixtures.fence("recovery-" + UUID.randomUUID(), 1), Duration.ZERO,
                Duration.ZERO);
        fixtures.enqueue(List.of(task));
        Claim second = transitions.claim(task, "taskfence-7d9f-pod/claim-2", Duration.ofMinutes(1)).orElseThrow();
        transitions.fail(second, "boom", true, Duration.ZERO, Duration.ZERO).orElseThrow();

        as(ApiKeysForTests.ADMIN_KEY).get(EVENTS, id).then().statusCode(200)
                .body("items.worker", hasItem(startsWith("taskfence-7d9f-pod/claim-1/")));
        as(ApiKeysForTests.SUBMIT_KEY).get(EVENTS, id).then().statusCode(200)
                .body("items.to", contains("PENDING", "ENQUEUED", "PROCESSING", "FAILED", "ENQUEUED", "PROCESSING",
                        "DEAD"))
                .body("items.worker", everyItem(nullValue()))
                .body("items.error", everyItem(not(containsString("taskfence-7d9f-pod"))));
        as(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/{id}", id).then().statusCode(200)
                .body("lastError", is("boom"));
    }

    @Test
    void anotherKeysTaskAndUnknownOrMalformedIdsAreNotFound() {
        String id = as(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201).extract().path("id");

        for (String asked : new String[] { id, UUID.randomUUID().toString(), "not-a-task-id" }) {
            RequestSpecification caller = as(asked.equals(id) ? ApiKeysForTests.OTHER_SUBMIT_KEY : ApiKeysForTests.SUBMIT_KEY);
            caller.get(EVENTS, asked).then().statusCode(404).contentType("application/problem+json")
                    .body("detail", is("no task with id '" + asked + "'"));
        }
        given().get(EVENTS, id).then().statusCode(401);
    }

    private static RequestSpecification as(String key) {
        return given().auth().oauth2(key);
    }
}

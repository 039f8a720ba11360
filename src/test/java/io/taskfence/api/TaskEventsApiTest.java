package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
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
                .body("items[0].keySet()", containsInAnyOrder("at", "from", "to", "attempt", "worker", "error"));
        as(ApiKeysForTests.ADMIN_KEY).get(EVENTS, id).then().statusCode(200).body("items", hasSize(3));
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

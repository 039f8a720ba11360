package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** Tenants: a submit key sees and acts on its own tasks only, and its idempotency keys are its own. */
@QuarkusTest
@TestServers
class TenancyTest {

    private static final String TASK = "{\"type\":\"noop\",\"payload\":{}}";
    private static final ObjectMapper DEEP_JSON = JsonMapper.builder(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(10_000).build()).build()).build();
    private static final String A = ApiKeysForTests.SUBMIT_KEY;
    private static final String B = ApiKeysForTests.OTHER_SUBMIT_KEY;

    @Inject
    DataSource db;

    @Test
    void anotherSubmitKeysTaskIsNotFoundAndStaysAsItWas() {
        String id = submit(A, TASK, null).then().statusCode(201).extract().path("id");

        as(B).get("/api/v1/tasks/{id}", id).then().statusCode(404).contentType("application/problem+json")
                .body("detail", is("no task with id '" + id + "'"));
        as(B).post("/api/v1/tasks/{id}/cancel", id).then().statusCode(404).contentType("application/problem+json");
        assertEquals("PENDING", status(id), "B's cancel changed A's task");

        as(A).post("/api/v1/tasks/{id}/cancel", id).then().statusCode(200);
        as(B).post("/api/v1/tasks/{id}/retry", id).then().statusCode(404).contentType("application/problem+json");
        assertEquals("CANCELLED", status(id), "B's retry changed A's task");
    }

    @Test
    void aSubmitKeyListsOnlyItsOwnTasksAndAnAdminListsAll() {
        String ofA = submit(A, TASK, null).then().statusCode(201).extract().path("id");
        String ofB = submit(B, TASK, null).then().statusCode(201).extract().path("id");

        as(B).queryParam("limit", 100).get("/api/v1/tasks").then().statusCode(200)
                .body("items.id", hasItem(ofB)).body("items.id", not(hasItem(ofA)))
                .body("items.owner", everyItem(is(ApiKeysForTests.OTHER_SUBMIT_KEY_NAME)));
        as(B).queryParam("owner", ApiKeysForTests.SUBMIT_KEY_NAME).get("/api/v1/tasks").then().statusCode(200)
                .body("items", empty());

        Set<String> all = ids(as(ApiKeysForTests.ADMIN_KEY).queryParam("limit", 100).get("/api/v1/tasks"));
        assertTrue(all.contains(ofA) && all.contains(ofB), "the admin's listing holds both keys' tasks");
        Set<String> ofKeyA = ids(as(ApiKeysForTests.ADMIN_KEY).queryParam("owner", ApiKeysForTests.SUBMIT_KEY_NAME)
                .queryParam("limit", 100).get("/api/v1/tasks"));
        assertTrue(ofKeyA.contains(ofA) && !ofKeyA.contains(ofB), "the admin's listing of A's tasks: " + ofKeyA);
        as(ApiKeysForTests.ADMIN_KEY).get("/api/v1/tasks/{id}", ofA).then().statusCode(200)
                .body("owner", is(ApiKeysForTests.SUBMIT_KEY_NAME));
    }

    @Test
    void theSameIdempotencyKeyFromTwoKeysMakesTwoTasks() {
        String key = "tenancy-" + UUID.randomUUID();
        String ofA = submit(A, TASK, key).then().statusCode(201).extract().path("id");
        // A different request: for A it would be a reused key (422); for B it is simply new.
        String ofB = submit(B, "{\"type\":\"noop\",\"payload\":{\"b\":1}}", key).then().statusCode(201).extract().path("id");
        assertNotEquals(ofA, ofB);
        submit(A, TASK, key).then().statusCode(200).body("id", is(ofA));
        submit(B, "{\"type\":\"noop\",\"payload\":{\"b\":1}}", key).then().statusCode(200).body("id", is(ofB));
        submit(A, "{\"type\":\"noop\",\"payload\":{\"b\":1}}", key).then().statusCode(422)
                .body("detail", containsString(ofA)).body("detail", not(containsString(ofB)));

        String batchKey = "tenancy-batch-" + UUID.randomUUID();
        String batch = "{\"tasks\":[{\"type\":\"noop\",\"payload\":{},\"idempotencyKey\":\"" + batchKey + "\"}]}";
        String batchOfA = as(A).contentType("application/json").body(batch).post("/api/v1/tasks/batch").then()
                .statusCode(200).body("created", is(1)).extract().path("items[0].task.id");
        String batchOfB = as(B).contentType("application/json").body(batch).post("/api/v1/tasks/batch").then()
                .statusCode(200).body("created", is(1)).extract().path("items[0].task.id");
        assertNotEquals(batchOfA, batchOfB);
    }

    private static RequestSpecification as(String key) {
        return given().auth().oauth2(key);
    }

    private static io.restassured.response.Response submit(String key, String body, String idempotencyKey) {
        RequestSpecification request = as(key).contentType("application/json").body(body);
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return request.post("/api/v1/tasks");
    }

    private String status(String id) {
        String[] status = new String[1];
        Sql.rows(db, "select status from tasks where id = '" + UUID.fromString(id) + "'", row -> status[0] = row.getString(1));
        return status[0];
    }

    /**
     * The ids of a listing's page, read with Jackson: the other API tests store payloads nested almost as deep as
     * the service accepts, which RestAssured's recursive JSON reader cannot take.
     */
    private static Set<String> ids(Response page) {
        assertEquals(200, page.statusCode(), page.asString());
        try {
            JsonNode items = DEEP_JSON.readTree(page.asString()).path("items");
            Set<String> ids = new HashSet<>();
            items.forEach(task -> ids.add(task.path("id").asText()));
            return ids;
        } catch (JsonProcessingException e) {
            throw new AssertionError("the listing is not JSON", e);
        }
    }

    @Test
    void aKeysMaxPriorityCapsWhatItsTasksMayAskForInASubmitAndABatch() {
        String over = "{\"type\":\"noop\",\"priority\":" + (ApiKeysForTests.WEIGHTED_MAX_PRIORITY + 1) + ",\"payload\":{}}";
        String atCap = "{\"type\":\"noop\",\"priority\":" + ApiKeysForTests.WEIGHTED_MAX_PRIORITY + ",\"payload\":{}}";
        long before = Sql.count(db, "select count(*) from tasks where owner = ?", ApiKeysForTests.WEIGHTED_KEY_NAME);
        given().auth().oauth2(ApiKeysForTests.WEIGHTED_KEY).contentType("application/json").body(over)
                .post("/api/v1/tasks").then().statusCode(400).contentType("application/problem+json")
                .body("field", is("priority"))
                .body("detail", is("priority must be at most 10 for API key 'weighted' (its max-priority), not 11"));
        given().auth().oauth2(ApiKeysForTests.WEIGHTED_KEY).contentType("application/json")
                .body("{\"tasks\":[" + atCap + "," + over + "]}").post("/api/v1/tasks/batch").then().statusCode(200)
                .body("created", is(1)).body("items[1].problem.field", is("tasks[1].priority"));
        assertEquals(before + 1, Sql.count(db, "select count(*) from tasks where owner = ?",
                ApiKeysForTests.WEIGHTED_KEY_NAME), "only the task within the cap was stored");
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).contentType("application/json").body(over.replace("11", "1000"))
                .post("/api/v1/tasks").then().statusCode(201);
    }
}

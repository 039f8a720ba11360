package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.task.Sql;
import io.taskfence.testing.TestServers;

/**
 * The audit log (DESIGN.md, "REST API", "Audit log"): each change an admin key asks for is recorded once answered,
 * with the key, the request's id (the caller's X-Request-Id, or one made and answered), the operation, path and
 * outcome; reads and other keys' changes are not; the log is listed newest first, filtered and paged, for admin keys
 * only; no secret is ever in it.
 */
@QuarkusTest
@TestServers
class AuditLogTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    DataSource db;

    @Test
    void anAdminsChangesAreRecordedWithTheKeyTheRequestIdAndTheOutcome() {
        String type = "audit-" + UUID.randomUUID().toString().substring(0, 8);
        String given = "req-" + UUID.randomUUID();
        admin().header("X-Request-Id", given).contentType("application/json").body("{\"remote\":true}")
                .put("/api/v1/types/" + type).then().statusCode(201).header("X-Request-Id", given);
        String made = admin().post("/api/v1/types/" + type + "/pause").then().statusCode(200).extract()
                .header("X-Request-Id");
        assertNotNull(made, "a request without an id is given one");
        UUID.fromString(made);
        String missing = admin().delete("/api/v1/schedules/no-such-" + type).then().statusCode(404).extract()
                .header("X-Request-Id");
        // An id that is not a plain token (it could split a header or a log line) is not taken: one is made instead.
        String forged = admin().header("X-Request-Id", "a b\u0007c").post("/api/v1/types/" + type + "/resume").then()
                .statusCode(200).extract().header("X-Request-Id");
        UUID.fromString(forged);
        // Not recorded: a read, a submission (the task keeps its key as owner), a change by a key that is not an admin's.
        String read = admin().get("/api/v1/types").then().statusCode(200).extract().header("X-Request-Id");
        // A path that decodes to what PostgreSQL's text may not hold (NUL) is recorded as it was sent.
        String nul = admin().urlEncodingEnabled(false).post("/api/v1/tasks/a%00b/cancel").then().statusCode(404)
                .extract().header("X-Request-Id");
        assertEquals("/api/v1/tasks/a%00b/cancel", entry(nul).getString("path"));
        // Refused before any operation ran (another site's page): answered with an id, and not recorded.
        String crossSite = admin().header("Origin", "https://elsewhere.example").post("/api/v1/types/" + type + "/pause")
                .then().statusCode(403).extract().header("X-Request-Id");
        assertNotNull(crossSite, "a refusal made before the request was matched carries its id too");
        String adminSubmitted = admin().contentType("application/json").body("{\"type\":\"noop\",\"payload\":{}}")
                .post("/api/v1/tasks").then().statusCode(201).extract().header("X-Request-Id");
        String own = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{},\"runAt\":\"2099-01-01T00:00:00Z\"}").post("/api/v1/tasks").then()
                .statusCode(201).extract().path("id");
        String submitted = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + own + "/cancel")
                .then().statusCode(200).extract().header("X-Request-Id");

        JsonPath declared = entry(given);
        assertEquals(ApiKeysForTests.ADMIN_KEY_NAME, declared.getString("key"));
        assertEquals("declareType", declared.getString("operation"));
        assertEquals("PUT", declared.getString("method"));
        assertEquals("/api/v1/types/" + type, declared.getString("path"));
        assertEquals(201, declared.getInt("status"));
        JsonPath paused = entry(made);
        assertEquals("pauseType", paused.getString("operation"));
        assertEquals("POST", paused.getString("method"));
        JsonPath refused = entry(missing);
        assertEquals("deleteSchedule", refused.getString("operation"));
        assertEquals(404, refused.getInt("status"), "a refused change is recorded with its outcome");
        assertEquals("resumeType", entry(forged).getString("operation"));
        assertEquals(0, Sql.count(db, "select count(*) from audit_log where request_id in (?, ?, ?, ?)", read,
                adminSubmitted, submitted, crossSite), "a read, a submission, a submit key's cancel and a request "
                + "refused before it was matched are not recorded");
        assertEquals(0, Sql.count(db, "select count(*) from audit_log where concat_ws(' ', key_name, request_id, "
                + "operation, method, path, location) like ?", "%" + ApiKeysForTests.ADMIN_KEY + "%"),
                "the admin key's secret is nowhere in the log");
        admin().delete("/api/v1/types/" + type).then().statusCode(204);
    }

    @Test
    void theLogIsListedNewestFirstFilteredAndPaged() {
        Instant before = Instant.now().minusSeconds(1);
        String type = "audit-" + UUID.randomUUID().toString().substring(0, 8);
        admin().contentType("application/json").body("{\"remote\":true}").put("/api/v1/types/" + type).then()
                .statusCode(201);
        List<String> ids = List.of(pause(type), resume(type), pause(type));
        await().atMost(WAIT).until(() -> Sql.count(db, "select count(*) from audit_log where request_id in (?, ?, ?)",
                ids.get(0), ids.get(1), ids.get(2)) == 3);

        String query = "/api/v1/audit?key=" + ApiKeysForTests.ADMIN_KEY_NAME + "&from=" + before + "&limit=2";
        JsonPath first = admin().get(query).then().statusCode(200).body("items", hasSize(2)).extract().jsonPath();
        assertEquals(List.of(ids.get(2), ids.get(1)), first.getList("items.requestId"), "newest first");
        String next = first.getString("next");
        assertNotNull(next, "a next page");
        JsonPath second = admin().get(query + "&after=" + next).then().statusCode(200).extract().jsonPath();
        assertEquals(ids.get(0), second.getString("items[0].requestId"));
        admin().get("/api/v1/audit?operation=resumeType&from=" + before).then().statusCode(200)
                .body("items.requestId", org.hamcrest.Matchers.hasItem(ids.get(1)))
                .body("items.operation", org.hamcrest.Matchers.everyItem(is("resumeType")));
        admin().get("/api/v1/audit?from=2099-01-01T00:00:00Z").then().statusCode(200).body("items", hasSize(0))
                .body("next", nullValue());
        admin().get("/api/v1/audit?to=" + before + "&key=" + ApiKeysForTests.ADMIN_KEY_NAME + "&operation=pauseType")
                .then().statusCode(200).body("items.requestId", org.hamcrest.Matchers.not(
                        org.hamcrest.Matchers.hasItem(ids.get(0))));

        for (String bad : List.of("limit=0", "after=abc", "from=yesterday", "key=Operator", "operation=pause-type")) {
            admin().get("/api/v1/audit?" + bad).then().statusCode(400).contentType("application/problem+json")
                    .body("detail", containsString(bad.substring(0, bad.indexOf('='))));
        }
        admin().delete("/api/v1/types/" + type).then().statusCode(204);
    }

    @Test
    void onlyAdminKeysReadIt() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/audit").then().statusCode(403);
        given().get("/api/v1/audit").then().statusCode(401);
    }

    private String pause(String type) {
        return admin().post("/api/v1/types/" + type + "/pause").then().statusCode(200).extract().header("X-Request-Id");
    }

    private String resume(String type) {
        return admin().post("/api/v1/types/" + type + "/resume").then().statusCode(200).extract().header("X-Request-Id");
    }

    /** The one entry of the request {@code requestId}, as the listing answers it; awaited. */
    private JsonPath entry(String requestId) {
        await().atMost(WAIT).until(() -> Sql.count(db, "select count(*) from audit_log where request_id = ?",
                requestId) == 1);
        Response listed = admin().get("/api/v1/audit?limit=100");
        listed.then().statusCode(200);
        List<String> requestIds = listed.jsonPath().getList("items.requestId");
        int index = requestIds.indexOf(requestId);
        assertTrue(index >= 0, requestId + " is not among the newest 100 entries: " + requestIds);
        return new JsonPath(listed.asString()).setRootPath("items[" + index + "]");
    }

    private static RequestSpecification admin() {
        return given().auth().oauth2(ApiKeysForTests.ADMIN_KEY);
    }
}

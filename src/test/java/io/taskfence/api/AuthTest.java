package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** API keys: none or a wrong one is 401, the wrong role is 403; probes and the API document stay open. Tenancy: TenancyTest. */
@QuarkusTest
@TestServers
class AuthTest {

    private static final String TASK = "{\"type\":\"noop\",\"payload\":{}}";

    @Inject
    DataSource db;
    @TestHTTPResource(value = "/", management = true)
    URI management;

    @Test
    void withoutAKeyTheApiAnswers401AndAddsNothing() {
        long before = Sql.count(db, "select count(*) from tasks");
        given().contentType("application/json").body(TASK).post("/api/v1/tasks").then().statusCode(401)
                .contentType("application/problem+json").header("WWW-Authenticate", containsString("Bearer"))
                .body("detail", containsString("Authorization: Bearer"));
        given().get("/api/v1/tasks").then().statusCode(401);
        given().header("Authorization", "Basic dXNlcjpwYXNz").get("/api/v1/tasks").then().statusCode(401);
        assertEquals(before, Sql.count(db, "select count(*) from tasks"));
    }

    @Test
    void aWrongKeyIs401() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY.substring(1)).get("/api/v1/tasks").then().statusCode(401)
                .contentType("application/problem+json").body("detail", containsString("not one this service knows"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY + "x").get("/api/v1/tasks").then().statusCode(401);
    }

    @Test
    void aSubmitKeyActsOnItsOwnTasksButMayNotReadStats() {
        String id = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(TASK)
                .post("/api/v1/tasks").then().statusCode(201).body("owner", is(ApiKeysForTests.SUBMIT_KEY_NAME))
                .extract().path("id");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/stats").then().statusCode(403)
                .contentType("application/problem+json").body("detail", containsString("admin key"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/cancel", id).then().statusCode(200)
                .body("status", is("CANCELLED"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/{id}/retry", id).then().statusCode(200)
                .body("status", is("PENDING"));
    }

    @Test
    void anAdminKeyMayDoEverything() {
        String id = given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).contentType("application/json").body(TASK)
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id");
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/tasks/{id}/cancel", id).then().statusCode(200);
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/stats").then().statusCode(200)
                .body("tasks", hasKey("CANCELLED")).body("tasks", hasKey("DEAD")).body("$", hasKey("queueDepth"))
                .body("$", hasKey("locks")).body("$", hasKey("replicas"));
    }

    @Test
    void probesMetricsAndTheApiDocumentNeedNoKeyOnTheManagementInterface() {
        given().get(management.resolve("/q/health/live")).then().statusCode(200).body("status", is("UP"));
        given().get(management.resolve("/q/metrics")).then().statusCode(200).body(containsString("taskfence_"));
        given().get(management.resolve("/q/openapi")).then().statusCode(200).body(containsString("/api/v1/tasks"));
    }

    @Test
    void theApiPortServesNoManagementEndpoint() {
        for (String path : new String[] { "/q/health/live", "/q/metrics", "/q/openapi", "/q/swagger-ui/" }) {
            given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get(path).then().statusCode(404);
        }
    }

    /** A forgotten @RolesAllowed closes an endpoint instead of opening it: no key, and no role, may call it. */
    @Test
    void anEndpointThatNamesNoRoleIsDeniedToEveryone() {
        given().get("/test-only/unannotated").then().statusCode(401);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/test-only/unannotated").then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/test-only/unannotated").then().statusCode(403);
    }
}

package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** {@code /api/v1/types}: the types with their pause flags and limits; pause and resume, admin only and idempotent. */
@QuarkusTest
@TestServers
class TypesApiTest {

    @Inject
    DataSource db;

    @AfterEach
    void resumeAll() {
        Sql.run(db, "delete from paused_types");
    }

    @Test
    void listsTheRegisteredTypesWithTheirPauseFlagsAndLimits() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("type", hasItem("noop")).body("type", hasItem("http"))
                .body("find { it.type == 'noop' }.paused", is(false))
                .body("find { it.type == 'noop' }.maxConcurrency", nullValue())
                .body("find { it.type == 'noop' }.rate", nullValue())
                .body("find { it.type == 'noop' }.rateUsed", nullValue());
    }

    /** How much of a type's limits every tenant together uses is the operators' to see. */
    @Test
    void aSubmitKeySeesTheLimitsButNotTheClusterWideCounts() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("inFlight", everyItem(nullValue())).body("rateUsed", everyItem(nullValue()));
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/types").then().statusCode(200)
                .body("inFlight", everyItem(notNullValue()));
    }

    @Test
    void pauseAndResumeAreIdempotentAndShownInTypesAndStats() {
        for (int i = 0; i < 2; i++) {
            given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/types/http/pause").then().statusCode(200)
                    .body("type", is("http")).body("paused", is(true));
        }
        assertEquals(1, Sql.count(db, "select count(*) from paused_types where type = 'http' and paused_by = ?",
                ApiKeysForTests.ADMIN_KEY_NAME));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/types").then().statusCode(200)
                .body("find { it.type == 'http' }.paused", is(true));
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/stats").then().statusCode(200)
                .body("types.find { it.type == 'http' }.paused", is(true));

        for (int i = 0; i < 2; i++) {
            given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/types/http/resume").then().statusCode(200)
                    .body("paused", is(false));
        }
        assertEquals(0, Sql.count(db, "select count(*) from paused_types"));
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).get("/api/v1/stats").then().statusCode(200)
                .body("types.type", not(hasItem("http")));
    }

    @Test
    void anUnknownTypeIs404AndASubmitKeyMayNotPause() {
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/types/nosuch/pause").then().statusCode(404)
                .contentType("application/problem+json").body("detail", containsString("no task type 'nosuch'"))
                .body("detail", containsString("noop"));
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/types/nosuch/resume").then().statusCode(404)
                .contentType("application/problem+json");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/types/noop/pause").then().statusCode(403)
                .contentType("application/problem+json");
        assertEquals(0, Sql.count(db, "select count(*) from paused_types"), "a refused request paused a type");
    }
}

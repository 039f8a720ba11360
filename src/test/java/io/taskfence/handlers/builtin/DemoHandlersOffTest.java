package io.taskfence.handlers.builtin;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * With {@code taskfence.handlers.demo.enabled=false}, as in production, {@code sleep} and {@code flaky} are not
 * task types at all: a client cannot hold workers for an hour a task or fill the table with failures. Other
 * types are unaffected.
 */
@QuarkusTest
@TestServers
@TestProfile(DemoHandlersOffTest.AsInProduction.class)
class DemoHandlersOffTest {

    public static final class AsInProduction implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.handlers.demo.enabled", "false");
        }
    }

    @Inject
    DataSource db;

    @ParameterizedTest
    @ValueSource(strings = { "sleep", "flaky" })
    void aDemoTypeIsRefusedAndNotStored(String type) {
        long before = Sql.count(db, "select count(*) from tasks");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"" + type + "\",\"payload\":{}}").post("/api/v1/tasks").then()
                .statusCode(422).contentType("application/problem+json")
                .body("detail", allOf(containsString("no handler for task type '" + type + "'"),
                        containsString("registered types: [archive, http, noop, ocr, resize, thumbnail, transcode]")));
        assertEquals(before, Sql.count(db, "select count(*) from tasks"), type + " was stored");
    }

    @Test
    void theOtherTypesStillTakeTasks() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201);
    }
}

package io.taskfence.tracing;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertNull;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** Tracing is off unless turned on (DESIGN.md, "Tracing"): a submission's trace context is not kept. */
@QuarkusTest
@TestServers
class UntracedTest {

    @Inject
    DataSource db;

    @Test
    void aSubmissionsTraceContextIsNotStoredWhileTracingIsOff() {
        String id = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY)
                .header("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                .contentType("application/json").body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks")
                .then().statusCode(201).extract().path("id");
        assertNull(Sql.value(db, "select trace_parent from tasks where id = ?::uuid", id));
    }
}

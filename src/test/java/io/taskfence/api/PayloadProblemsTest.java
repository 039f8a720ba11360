package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.handlers.builtin.HttpHandlerProfile;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** A payload its handler could never run is refused at submission with a 422 that says why, and not stored. */
@QuarkusTest
@TestServers
@TestProfile(HttpHandlerProfile.class)
class PayloadProblemsTest {

    @Inject
    DataSource db;

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("http to a host not allowed", "http", "{\"url\":\"http://localhost:8080/hook\"}",
                        "host 'localhost' is not allowed: add http://localhost:8080 to taskfence.http.allowed-hosts"),
                Arguments.of("http to another loopback address", "http", "{\"url\":\"http://127.0.0.2/hook\"}",
                        "host '127.0.0.2' is not allowed: it is a loopback address"),
                Arguments.of("http to an allowed host on another port", "http",
                        "{\"url\":\"http://127.0.0.1:6379/\"}",
                        "lists host '127.0.0.1', but not with scheme http and port 6379"),
                Arguments.of("http to the metadata service", "http",
                        "{\"url\":\"http://169.254.169.254/latest/meta-data/\"}",
                        "host '169.254.169.254' is not allowed: it is a link-local address"),
                Arguments.of("http without a url", "http", "{\"body\":{}}", "payload.url must be a string"),
                Arguments.of("http with a url that is not a string", "http", "{\"url\":42}", "payload.url must be a string"),
                Arguments.of("http to ftp", "http", "{\"url\":\"ftp://127.0.0.1/x\"}",
                        "payload.url must be an http or https URL, not ftp"),
                Arguments.of("http with a malformed url", "http", "{\"url\":\"http://127.0.0.1/a b\"}",
                        "payload.url is not a URL"),
                Arguments.of("sleep for -1 ms", "sleep", "{\"ms\":-1}",
                        "payload.ms must be a whole number from 0 to 3600000, not -1"),
                Arguments.of("sleep for a string", "sleep", "{\"ms\":\"10\"}", "payload.ms must be a whole number"),
                Arguments.of("sleep too long", "sleep", "{\"ms\":3600001}", "payload.ms must be a whole number"),
                Arguments.of("flaky with a fraction", "flaky", "{\"failTimes\":1.5}",
                        "payload.failTimes must be a whole number from 0"),
                Arguments.of("flaky with a negative count", "flaky", "{\"failTimes\":-2}",
                        "payload.failTimes must be a whole number from 0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aPayloadTheHandlerRefusesIs422AndAddsNoTask(String what, String type, String payload, String says) {
        long before = tasks();
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"" + type + "\",\"payload\":" + payload + "}").post("/api/v1/tasks").then()
                .statusCode(422).contentType("application/problem+json").body("status", is(422))
                .body("detail", containsString("payload of a '" + type + "' task: "))
                .body("detail", containsString(says));
        assertEquals(before, tasks(), what + " added a task");
    }

    @Test
    void payloadsTheHandlersCanRunAreAccepted() {
        for (String task : new String[] {
                "{\"type\":\"http\",\"payload\":{\"url\":\"http://127.0.0.1:9/hook\",\"body\":[1,2]}}",
                "{\"type\":\"http\",\"payload\":{\"url\":\"HTTPS://127.0.0.1/hook\"}}",
                "{\"type\":\"sleep\",\"payload\":{\"ms\":5}}",
                "{\"type\":\"sleep\",\"payload\":{}}",
                "{\"type\":\"flaky\",\"payload\":{\"failTimes\":2}}" }) {
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(task)
                    .post("/api/v1/tasks").then().statusCode(201);
        }
    }

    private long tasks() {
        return Sql.count(db, "select count(*) from tasks");
    }
}

package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import io.taskfence.api.problem.RequestProblems;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.LogCapture;
import io.taskfence.testing.TestServers;

/**
 * Every way a request can be wrong gets an RFC 9457 problem with the right status and a detail (or a
 * violation naming the field) that says what to fix, never a 5xx, and changes no row.
 */
@QuarkusTest
@TestServers
class ApiErrorsTest {

    private static final String OK_TASK = "{\"type\":\"noop\",\"payload\":{}}";

    @Inject
    DataSource db;

    /** A browser must not read an API answer, data or problem, as anything but what it is (X-Content-Type-Options). */
    @Test
    void everyApiAnswerTellsBrowsersNotToSniffItsType() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks").then().statusCode(200)
                .header("X-Content-Type-Options", "nosniff");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body("{")
                .post("/api/v1/tasks").then().statusCode(400).header("X-Content-Type-Options", "nosniff");
        given().get("/api/v1/tasks").then().statusCode(401).header("X-Content-Type-Options", "nosniff");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/nothing-here").then().statusCode(404)
                .header("X-Content-Type-Options", "nosniff");
    }

    static Stream<Arguments> badSubmissions() {
        String big = "x".repeat(70 * 1024);
        String huge = "x".repeat(2 * 1024 * 1024);
        return Stream.of(
                Arguments.of("malformed JSON", "{\"type\":\"noop\"", 400, "detail", "not valid JSON"),
                Arguments.of("no body", "", 400, "violations.message", "a JSON object with at least type and payload"),
                Arguments.of("JSON null", "null", 400, "violations.message", "a JSON object with at least type and payload"),
                Arguments.of("missing type", "{\"payload\":{}}", 400, "violations.field", "type"),
                Arguments.of("missing payload", "{\"type\":\"noop\"}", 400, "violations.field", "payload"),
                Arguments.of("type not matching", "{\"type\":\"Bad Type\",\"payload\":{}}", 400, "violations.field", "type"),
                Arguments.of("payload not an object", "{\"type\":\"noop\",\"payload\":[1]}", 400, "detail",
                        "payload must be a JSON object"),
                Arguments.of("maxAttempts not a number", "{\"type\":\"noop\",\"payload\":{},\"maxAttempts\":\"x\"}", 400,
                        "field", "maxAttempts"),
                Arguments.of("maxAttempts out of range", "{\"type\":\"noop\",\"payload\":{},\"maxAttempts\":0}", 400,
                        "violations.field", "maxAttempts"),
                Arguments.of("priority out of range", "{\"type\":\"noop\",\"payload\":{},\"priority\":5000}", 400,
                        "violations.field", "priority"),
                Arguments.of("unknown field", "{\"type\":\"noop\",\"payload\":{},\"max_attempts\":3}", 400, "field",
                        "max_attempts"),
                Arguments.of("unknown field, the known ones listed", "{\"type\":\"noop\",\"payload\":{},\"max_attempts\":3}",
                        400, "detail", "the fields are callback, concurrencyKey, deadline, dedupe, dependsOn, maxAttempts, "
                                + "onDependencyFailure, "
                                + "payload, priority, runAt, timeout, type"),
                Arguments.of("type not a string", "{\"type\":{\"a\":1},\"payload\":{}}", 400, "field", "type"),
                Arguments.of("a JSON array for a body", "[" + OK_TASK + "]", 400, "detail", "the body must be a JSON object"),
                Arguments.of("runAt not a time", "{\"type\":\"noop\",\"payload\":{},\"runAt\":\"tomorrow\"}", 400, "field",
                        "runAt"),
                Arguments.of("deadline before runAt", "{\"type\":\"noop\",\"payload\":{},\"runAt\":\"2030-01-02T00:00:00Z\","
                        + "\"deadline\":\"2030-01-01T00:00:00Z\"}", 400, "detail", "deadline must be after runAt"),
                Arguments.of("unknown type", "{\"type\":\"no-such-type\",\"payload\":{}}", 422, "detail",
                        "no handler for task type 'no-such-type'"),
                Arguments.of("payload over 64 KiB", "{\"type\":\"noop\",\"payload\":{\"x\":\"" + big + "\"}}", 413, "detail",
                        "at most 65536"),
                Arguments.of("body over the HTTP limit", "{\"type\":\"noop\",\"payload\":{\"x\":\"" + huge + "\"}}", 413,
                        "detail", "at most 1048576 are read"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSubmissions")
    void aBadSubmissionIsAProblemAndAddsNoTask(String what, String body, int status, String path, String says) {
        long before = tasks();
        problem(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(body)
                .post("/api/v1/tasks").then(), status, path, says);
        assertEquals(before, tasks(), what + " added a task");
    }

    @Test
    void aBodyThatIsNotJsonIs415() {
        long before = tasks();
        problem(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("text/plain").body(OK_TASK)
                .post("/api/v1/tasks").then(), 415, "detail", "content-type");
        assertEquals(before, tasks());
    }

    @Test
    void aMalformedIdempotencyKeyIs400() {
        long before = tasks();
        problem(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(OK_TASK)
                .header("Idempotency-Key", "k".repeat(201)).post("/api/v1/tasks").then(), 400, "violations.field",
                "Idempotency-Key");
        assertEquals(before, tasks());
    }

    static Stream<Arguments> badReads() {
        return Stream.of(
                Arguments.of("/api/v1/tasks/7d0c4b5e-0000-4000-8000-000000000000", 404, "no task with id"),
                Arguments.of("/api/v1/tasks/not-a-uuid", 404, "no task with id 'not-a-uuid'"),
                Arguments.of("/api/v1/tasks?status=DONE", 400, "status: must be one of"),
                Arguments.of("/api/v1/tasks?limit=0", 400, "limit: must be a whole number from 1 to 100"),
                Arguments.of("/api/v1/tasks?limit=ten", 400, "limit: must be a whole number"),
                Arguments.of("/api/v1/tasks?after=bm90LWEtY3Vyc29y", 400, "after: must be the 'next' of an earlier page"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badReads")
    void aBadReadIsAProblem(String path, int status, String says) {
        problem(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get(path).then(), status, "detail", says);
    }

    @Test
    void cancellingOrRetryingAnUnknownTaskIs404() {
        problem(given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/tasks/{id}/cancel",
                "7d0c4b5e-0000-4000-8000-000000000000").then(), 404, "detail", "no task with id");
        problem(given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).post("/api/v1/tasks/{id}/retry", "nope").then(), 404,
                "detail", "no task with id 'nope'");
    }

    @Test
    void anUnknownPathOrMethodIsAProblem() {
        problem(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/nothing-here").then(), 404, "detail",
                "nothing is served at /api/v1/nothing-here");
        problem(given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/tasks").then(), 405, "title",
                "Method Not Allowed");
    }

    static Stream<Arguments> requestsRefusedAtEachStage() {
        String submit = ApiKeysForTests.SUBMIT_KEY;
        return Stream.of(
                Arguments.of("authentication", null, "POST", "/api/v1/tasks", OK_TASK),
                Arguments.of("authorisation", submit, "GET", "/api/v1/stats", null),
                Arguments.of("routing", submit, "GET", "/api/v1/nothing-here", null),
                Arguments.of("reading the body", submit, "POST", "/api/v1/tasks", "{"),
                Arguments.of("validation", submit, "POST", "/api/v1/tasks", "{\"payload\":{}}"),
                Arguments.of("the resource", submit, "GET", "/api/v1/tasks/not-a-uuid", null));
    }

    /** RFC 9457's instance: the path the problem occurred at, whichever stage refused the request. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("requestsRefusedAtEachStage")
    void everyProblemNamesThePathItConcerns(String stage, String key, String method, String path, String body) {
        RequestSpecification request = given();
        if (key != null) {
            request.auth().oauth2(key);
        }
        if (body != null) {
            request.contentType("application/json").body(body);
        }
        request.request(method, path).then().contentType("application/problem+json").body("instance", is(path))
                .body("title", notNullValue());
    }

    @Test
    void aFaultOfTheServerIsA500ProblemThatKeepsItsInternalsInTheLog() {
        try (LogCapture log = LogCapture.of(RequestProblems.class.getName())) {
            problem(given().get("/test-only/failure").then(), 500, "detail", "failed on the server")
                    .body(not(containsString(FailingResource.INTERNALS)));
            assertTrue(log.lines().stream().anyMatch(line -> line.message().contains("GET /test-only/failure failed")),
                    "the failure is logged: " + log.lines());
        }
    }

    private static ValidatableResponse problem(ValidatableResponse response, int status, String path, String says) {
        response.statusCode(status).contentType("application/problem+json").body("status", is(status));
        if (path.startsWith("violations")) {
            response.body(path, hasItem(containsString(says)));
        } else {
            response.body(path, containsString(says));
        }
        return response;
    }

    private long tasks() {
        return Sql.count(db, "select count(*) from tasks");
    }
}

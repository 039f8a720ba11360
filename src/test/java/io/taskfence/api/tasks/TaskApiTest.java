package io.taskfence.api.tasks;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** What a client does with the API: submit, read, list, cancel, retry; and submit twice safely. */
@QuarkusTest
@TestServers
class TaskApiTest {

    @Inject
    DataSource db;

    @Test
    void aSubmittedTaskCanBeReadListedCancelledAndRetried() {
        Response created = submit("{\"type\":\"noop\",\"payload\":{\"hello\":\"world\"},\"priority\":7,\"maxAttempts\":3}",
                null);
        created.then().statusCode(201).header("Location", notNullValue())
                .body("status", is("PENDING")).body("attempt", is(0)).body("maxAttempts", is(3))
                .body("priority", is(7)).body("payload.hello", is("world")).body("runAt", notNullValue());
        String id = created.path("id");
        String location = created.header("Location");
        assertTrue(location.endsWith("/api/v1/tasks/" + id), location);

        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get(location).then().statusCode(200)
                .body("id", is(id)).body("type", is("noop"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("status", "PENDING").queryParam("type", "noop")
                .get("/api/v1/tasks").then().statusCode(200).body("items.id", org.hamcrest.Matchers.hasItem(id));

        admin().post("/api/v1/tasks/{id}/cancel", id).then().statusCode(200).body("status", is("CANCELLED"));
        admin().post("/api/v1/tasks/{id}/cancel", id).then().statusCode(409)
                .contentType("application/problem+json").body("detail", org.hamcrest.Matchers.containsString("it is CANCELLED"));
        admin().post("/api/v1/tasks/{id}/retry", id).then().statusCode(200).body("status", is("PENDING"));
        admin().post("/api/v1/tasks/{id}/retry", id).then().statusCode(409)
                .body("detail", org.hamcrest.Matchers.containsString("only a task that is DEAD or CANCELLED"));
    }

    @Test
    void theDefaultsComeFromConfiguration() {
        submit("{\"type\":\"noop\",\"payload\":{}}", null).then().statusCode(201)
                .body("maxAttempts", is(5)).body("priority", is(0)).body("deadline", equalTo(null));
    }

    static final String TIMES_RULE = "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z";

    /**
     * Tasks PostgreSQL cannot store as given (jsonb has no U+0000; timestamptz and the driver's binding have
     * their ranges): each as a task's JSON fields, and what the 400 says. BulkSubmitTest sends them too.
     */
    static Stream<Arguments> unstorable() {
        return Stream.of(
                Arguments.of("\"payload\":{\"a\":{\"b\":\"x\\u0000y\"}}",
                        "payload must not contain the character U+0000 (at payload.a.b)"),
                Arguments.of("\"payload\":{\"a\":[1,{\"k\\u0000\":2}]}",
                        "payload must not contain the character U+0000 (in a key of payload.a[1])"),
                Arguments.of("\"payload\":{},\"runAt\":\"+300000-01-01T00:00:00Z\"", "runAt " + TIMES_RULE),
                Arguments.of("\"payload\":{},\"runAt\":\"+10000-01-01T00:00:00Z\"", "runAt " + TIMES_RULE),
                Arguments.of("\"payload\":{},\"runAt\":\"1969-12-31T23:59:59Z\"", "runAt " + TIMES_RULE),
                Arguments.of("\"payload\":{},\"deadline\":\"+10000-01-01T00:00:00Z\"", "deadline " + TIMES_RULE),
                Arguments.of("\"payload\":{},\"deadline\":\"9999-12-31T23:59:59.5Z\"", "deadline " + TIMES_RULE),
                Arguments.of("\"payload\":{},\"deadline\":\"0001-01-01T00:00:00Z\"", "deadline " + TIMES_RULE),
                Arguments.of("\"payload\":{},\"deadline\":\"-0001-01-01T00:00:00Z\"", "deadline " + TIMES_RULE));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("unstorable")
    void aTaskPostgresqlCannotStoreIs400AndStoresNothing(String fields, String says) {
        long before = Sql.count(db, "select count(*) from tasks");
        submit("{\"type\":\"noop\"," + fields + "}", "unstorable-" + UUID.randomUUID()).then().statusCode(400)
                .contentType("application/problem+json").body("status", is(400)).body("detail", containsString(says));
        assertEquals(before, Sql.count(db, "select count(*) from tasks"));
    }

    @Test
    void theTimesAtTheEndsOfTheRangeAreStoredAsGiven() {
        submit("{\"type\":\"noop\",\"payload\":{\"s\":\"\\u0001\"},\"runAt\":\"1970-01-01T00:00:00Z\","
                + "\"deadline\":\"9999-12-31T23:59:59Z\"}", null).then().statusCode(201)
                .body("runAt", is("1970-01-01T00:00:00Z")).body("deadline", is("9999-12-31T23:59:59Z"))
                .body("payload.s", is("\u0001"));
    }

    @Test
    void aRepeatedIdempotencyKeyReturnsTheFirstTask() {
        String key = "order-" + UUID.randomUUID();
        String body = "{\"type\":\"noop\",\"payload\":{\"order\":42}}";
        String first = submit(body, key).then().statusCode(201).extract().path("id");
        submit(body, key).then().statusCode(200).body("id", is(first)).header("Location", endsWith(first));
        submit("{\"type\":\"noop\",\"payload\":{\"order\":43}}", key).then().statusCode(422)
                .contentType("application/problem+json").body("detail", containsString(first))
                .body("detail", containsString("Idempotency-Key '" + key + "' was already used"));
        assertEquals(1, Sql.count(db, "select count(*) from tasks where idempotency_key = ?", key));
    }

    @Test
    void twentyRacingSubmissionsWithOneKeyMakeOneTask() throws Exception {
        String key = "race-" + UUID.randomUUID();
        String body = "{\"type\":\"noop\",\"payload\":{\"race\":true}}";
        int racers = 20;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        List<Future<Response>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < racers; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return submit(body, key);
                }));
            }
            start.countDown();
            int created = 0;
            Set<String> ids = new HashSet<>();
            for (Future<Response> answer : answers) {
                Response response = answer.get();
                assertTrue(response.statusCode() == 201 || response.statusCode() == 200, response.asString());
                created += response.statusCode() == 201 ? 1 : 0;
                ids.add(response.path("id"));
            }
            assertEquals(1, created, "answers that said they created the task");
            assertEquals(1, ids.size(), "different tasks returned for one key: " + ids);
            assertEquals(1, Sql.count(db, "select count(*) from tasks where idempotency_key = ?", key));
        } finally {
            pool.shutdownNow();
        }
    }

    private static Response submit(String body, String idempotencyKey) {
        var request = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(body);
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return request.post("/api/v1/tasks");
    }

    private static io.restassured.specification.RequestSpecification admin() {
        return given().auth().oauth2(ApiKeysForTests.ADMIN_KEY);
    }
}

package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A key's request rate (5 a minute here, so that no token comes back while a test runs): requests at once get
 * exactly the bucket's tokens, the rest 429 with Retry-After and nothing done; a batch costs a token per task.
 */
@QuarkusTest
@TestServers
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RequestRateTest {

    private static final String TASK = "{\"type\":\"noop\",\"payload\":{}}";

    @Inject
    DataSource db;

    @TestHTTPResource("/api/v1/tasks")
    URI tasks;

    @Test
    @Order(1)
    void requestsAtOnceGetExactlyTheBucketAndTheRestAre429WithRetryAfter() throws Exception {
        int callers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return given().auth().oauth2(ApiKeysForTests.RATED_KEY).contentType("application/json").body(TASK)
                            .post("/api/v1/tasks");
                }));
            }
            start.countDown();
            int created = 0;
            for (Future<Response> future : answers) {
                Response answer = future.get();
                if (answer.statusCode() == 201) {
                    created++;
                    continue;
                }
                assertEquals(429, answer.statusCode(), answer.asString());
                assertEquals("application/problem+json", answer.contentType());
                int retryAfter = Integer.parseInt(answer.header("Retry-After"));
                assertTrue(retryAfter >= 1 && retryAfter <= 12, "a token comes back every 12 s: " + retryAfter);
                assertEquals("API key 'rated' may make 5/m requests (a batch counts its tasks); this one would exceed "
                        + "that, so it was not handled. Try again after Retry-After", answer.jsonPath().getString("detail"));
            }
            assertEquals(5, created, "the bucket holds 5 tokens");
            assertEquals(5, Sql.count(db, "select count(*) from tasks where owner = ?", ApiKeysForTests.RATED_KEY_NAME),
                    "a refused request stored a task");
        } finally {
            pool.shutdownNow();
        }
        given().auth().oauth2(ApiKeysForTests.RATED_KEY).get("/api/v1/tasks").then().statusCode(429);
        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).get("/api/v1/tasks").then().statusCode(200);
    }

    /**
     * More single submissions at once than the replica's Redis pool holds connections and queue places for (16 + 64
     * in application.properties): those it cannot count are refused with a 429 too, never let through uncounted.
     */
    @Test
    @Order(2)
    void aBurstLargerThanTheRedisPoolIsStillHeldToTheBucket() {
        long before = Sql.count(db, "select count(*) from tasks where owner = ?", ApiKeysForTests.RATED_KEY_NAME);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest submit = HttpRequest.newBuilder(tasks).header("Authorization", "Bearer " + ApiKeysForTests.RATED_KEY)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(TASK)).build();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            answers.add(http.sendAsync(submit, HttpResponse.BodyHandlers.ofString()));
        }
        int created = 0;
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> reply = answer.join();
            if (reply.statusCode() == 201) {
                created++;
            } else {
                assertEquals(429, reply.statusCode(), reply.body());
            }
        }
        assertTrue(created <= 5, created + " of 400 submissions went through a bucket of 5 tokens");
        assertEquals(created, Sql.count(db, "select count(*) from tasks where owner = ?", ApiKeysForTests.RATED_KEY_NAME)
                - before, "tasks stored by the burst");
    }

    @Test
    void aBatchCostsATokenPerTaskAndOneLargerThanTheBucketIsToldToSplit() {
        given().auth().oauth2(ApiKeysForTests.RATED_BATCH_KEY).contentType("application/json").body(batchOf(6))
                .post("/api/v1/tasks/batch").then().statusCode(429).header("Retry-After", nullValue())
                .body("detail", is("a batch of 6 tasks is more than API key 'ratedbatch' may send at once (its rate is "
                        + "5/m, and a batch counts its tasks): send batches of at most 5 tasks"));
        // The refused batch took its request's token: 4 are left.
        given().auth().oauth2(ApiKeysForTests.RATED_BATCH_KEY).contentType("application/json").body(batchOf(3))
                .post("/api/v1/tasks/batch").then().statusCode(200).body("created", is(3));
        given().auth().oauth2(ApiKeysForTests.RATED_BATCH_KEY).contentType("application/json").body(batchOf(2))
                .post("/api/v1/tasks/batch").then().statusCode(429);
        assertEquals(3, Sql.count(db, "select count(*) from tasks where owner = ?", ApiKeysForTests.RATED_BATCH_KEY_NAME));
    }

    private static String batchOf(int tasks) {
        return "{\"tasks\":[" + String.join(",", Collections.nCopies(tasks, TASK)) + "]}";
    }
}

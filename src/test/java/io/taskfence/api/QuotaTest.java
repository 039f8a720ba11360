package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** A key with max-unfinished = 3: beyond it a submission is answered 429 with Retry-After and stores nothing. */
@QuarkusTest
@TestServers
class QuotaTest {

    private static final String TASK = "{\"type\":\"noop\",\"payload\":{}}";
    private static final String OWNER = ApiKeysForTests.QUOTA_KEY_NAME;
    private static final int LIMIT = ApiKeysForTests.QUOTA_LIMIT;

    @Inject
    DataSource db;

    /** Only this class uses the quota key; each test starts with none of its tasks unfinished. */
    @BeforeEach
    void finishEveryTaskOfTheKey() {
        Sql.run(db, "update tasks set status = 'SUCCEEDED' where owner = ? and status <> 'SUCCEEDED'", OWNER);
    }

    @Test
    void aSubmissionBeyondTheQuotaIs429AndStoresNothing() {
        for (int i = 0; i < LIMIT; i++) {
            submit().post("/api/v1/tasks").then().statusCode(201);
        }
        long before = all();
        submit().post("/api/v1/tasks").then().statusCode(429).contentType("application/problem+json")
                .header("Retry-After", "10")
                .body("detail", containsString("API key '" + OWNER + "' has reached its quota of 3 unfinished tasks; the 1 submitted would exceed it"));
        assertEquals(before, all(), "a refused submission stored a row");
        assertEquals(LIMIT, unfinished());
    }

    /** Submissions that a dedupe key answers with its unstarted task count as that one task: not refused at the quota. */
    @Test
    void submissionsADedupeKeyAnswersCountAsTheOneTask() {
        String held = "{\"type\":\"noop\",\"payload\":{},\"runAt\":\"" + java.time.Instant.now().plusSeconds(3600)
                + "\",\"dedupe\":{\"key\":\"quota-held\",\"mode\":\"replace\"}}";
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(held)
                .post("/api/v1/tasks").then().statusCode(201);
        for (int i = 1; i < LIMIT; i++) {
            submit().post("/api/v1/tasks").then().statusCode(201);
        }
        for (int i = 0; i < 3; i++) {
            given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(held)
                    .post("/api/v1/tasks").then().statusCode(200);
        }
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json")
                .body(held.replace("quota-held", "quota-new")).post("/api/v1/tasks").then().statusCode(429);
        assertEquals(LIMIT, unfinished());
    }

    /** A bulk request over the quota stores nothing: not the changes its dedupe keys would make to held tasks either. */
    @Test
    void aBulkRequestOverTheQuotaChangesNoTaskItsDedupeKeysHold() {
        String later = java.time.Instant.now().plusSeconds(3600).toString();
        String held = "{\"type\":\"noop\",\"payload\":{\"n\":1},\"runAt\":\"" + later
                + "\",\"dedupe\":{\"key\":\"quota-bulk\",\"mode\":\"replace\"}}";
        String id = given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(held)
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id");
        for (int i = 1; i < LIMIT; i++) {
            submit().post("/api/v1/tasks").then().statusCode(201);
        }
        String both = "{\"tasks\":[" + held.replace("\"n\":1", "\"n\":2") + "," + TASK + "]}";
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(both)
                .post("/api/v1/tasks/batch").then().statusCode(429).contentType("application/problem+json");
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).get("/api/v1/tasks/{id}", id).then().statusCode(200)
                .body("payload.n", is(1));
        assertEquals(0L, Sql.count(db, "select count(*) from task_event_log where task_id = ?::uuid", id),
                "no replacement recorded");
    }

    @Test
    void aBatchCountsAllItsTasksAndIsRefusedWhole() {
        submit().post("/api/v1/tasks").then().statusCode(201);
        long before = all();
        String three = "{\"tasks\":[" + TASK + "," + TASK + "," + TASK + "]}";
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(three)
                .post("/api/v1/tasks/batch").then().statusCode(429).contentType("application/problem+json")
                .header("Retry-After", "10").body("detail", containsString("has 1 unfinished tasks and may have at most 3; the 3 submitted would exceed it"));
        assertEquals(before, all(), "a refused batch stored a row");

        String two = "{\"tasks\":[" + TASK + "," + TASK + "]}";
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(two)
                .post("/api/v1/tasks/batch").then().statusCode(200).body("created", is(2));
        assertEquals(LIMIT, unfinished());
    }

    @Test
    void finishedTasksMakeRoomAgain() {
        for (int i = 0; i < LIMIT; i++) {
            submit().post("/api/v1/tasks").then().statusCode(201);
        }
        submit().post("/api/v1/tasks").then().statusCode(429);
        Sql.run(db, "update tasks set status = 'CANCELLED' where id = (select id from tasks where owner = ? "
                + "and status = 'PENDING' limit 1)", OWNER);
        submit().post("/api/v1/tasks").then().statusCode(201);
    }

    /** Cancelling frees room, and a retry takes it as a submission would: a cancel-and-retry loop cannot pass it. */
    @Test
    void aRetryIsHeldToTheQuotaAsASubmissionIs() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            ids.add(submit().post("/api/v1/tasks").then().statusCode(201).extract().path("id"));
        }
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + ids.get(0) + "/cancel").then()
                .statusCode(200);
        submit().post("/api/v1/tasks").then().statusCode(201);
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + ids.get(0) + "/retry").then()
                .statusCode(429).contentType("application/problem+json").header("Retry-After", "10")
                .body("detail", containsString("has reached its quota of 3 unfinished tasks; retrying this task would "
                        + "exceed it, so it was not retried"));
        assertEquals("CANCELLED", Sql.value(db, "select status from tasks where id = ?::uuid", ids.get(0)));
        assertEquals(LIMIT, unfinished());
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + ids.get(1) + "/cancel").then()
                .statusCode(200);
        given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + ids.get(0) + "/retry").then()
                .statusCode(200).body("status", is("PENDING"));
    }

    /** Submissions and retries at once, single and batch: exactly the quota is stored, the rest answered 429. */
    @Test
    void theQuotaHoldsExactlyUnderConcurrentSubmissions() throws Exception {
        int callers = 16;
        List<String> cancelled = new ArrayList<>();
        for (int i = 0; i < callers / 4; i++) {
            String id = submit().post("/api/v1/tasks").then().statusCode(201).extract().path("id");
            given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + id + "/cancel").then().statusCode(200);
            cancelled.add(id);
        }
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                boolean batch = i % 4 == 0;
                String retry = i % 4 == 1 ? cancelled.get(i / 4) : null;
                answers.add(pool.submit(() -> {
                    start.await();
                    if (retry != null) {
                        return given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + retry + "/retry")
                                .statusCode();
                    }
                    return batch
                            ? given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json")
                                    .body("{\"tasks\":[" + TASK + "]}").post("/api/v1/tasks/batch").statusCode()
                            : submit().post("/api/v1/tasks").statusCode();
                }));
            }
            start.countDown();
            int stored = 0;
            for (Future<Integer> answer : answers) {
                int status = answer.get();
                if (status == 200 || status == 201) {
                    stored++;
                } else {
                    assertEquals(429, status);
                }
            }
            assertEquals(LIMIT, stored);
            assertEquals(LIMIT, unfinished());
        } finally {
            pool.shutdownNow();
        }
    }

    private static RequestSpecification submit() {
        return given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json").body(TASK);
    }

    private long unfinished() {
        return count("select count(*) from tasks where owner = '" + OWNER + "' and status in "
                + "('PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED')");
    }

    private long all() {
        return count("select count(*) from tasks");
    }

    private long count(String sql) {
        return Sql.count(db, sql);
    }
}

package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.DataSource.DataSourceLiteral;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.taskfence.store.ReadDatabase;
import io.taskfence.store.TaskDatabase;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * The bulkheads of the API's reads (DESIGN.md, "REST API", "Bulkheads"): a read past the read time-out answers a
 * problem that says to narrow it; counts stop at their cap and give the bound they counted to; a text search without
 * createdAfter looks back the search window and says so; each key's searches and long-polls are capped; readiness
 * reports both pools.
 */
@QuarkusTest
@TestServers
@TestProfile(ReadBulkheadsTest.Bounded.class)
class ReadBulkheadsTest {

    /** Small bounds, so that a test reaches each of them with a few requests. */
    public static final class Bounded implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "taskfence.api.read-timeout", "1s",
                    "taskfence.api.count-cap", "3",
                    "taskfence.api.searches-per-key", "1",
                    "taskfence.api.long-polls-per-key", "1",
                    "taskfence.api.claim-waits-per-key", "1",
                    "quarkus.datasource.reads.jdbc.max-size", "2",
                    "quarkus.datasource.jdbc.max-size", "6");
        }
    }

    private static final String SUBMITTER = ApiKeysForTests.SUBMIT_KEY;

    @Inject
    DataSource db;

    @Test
    void aCountStopsAtItsCapSayingAtLeastAndGivesTheBoundItCountedTo() {
        Instant start = Instant.now().minusSeconds(1);
        submit(SUBMITTER, "{}");
        submit(SUBMITTER, "{}");
        Response two = count(Map.of("createdAfter", start.toString()));
        two.then().statusCode(200).body("count", equalTo(2)).body("atLeast", equalTo(false));
        Instant bound = Instant.parse(two.path("createdBefore"));
        assertEquals(start, Instant.parse(two.path("createdAfter")), "the filter's own lower bound");
        assertFalse(bound.isBefore(start), "the bound is when it counted: " + bound);

        submit(SUBMITTER, "{}");
        count(Map.of("createdAfter", start.toString(), "createdBefore", bound.toString())).then().statusCode(200)
                .body("count", equalTo(2)).body("atLeast", equalTo(false)).body("createdBefore", equalTo(bound.toString()));
        count(Map.of("createdAfter", start.toString())).then().body("count", equalTo(3)).body("atLeast", equalTo(false));

        submit(SUBMITTER, "{}");
        count(Map.of("createdAfter", start.toString())).then().statusCode(200)
                .body("count", equalTo(3)).body("atLeast", equalTo(true));
        Map<String, Object> unbounded = count(Map.of()).jsonPath().getMap("");
        assertEquals(List.of("atLeast", "count", "createdAfter", "createdBefore"),
                unbounded.keySet().stream().sorted().toList(), "the count's answer, exactly");
        assertEquals(null, unbounded.get("createdAfter"), "no lower bound when neither the filter nor a window has one");
    }

    @Test
    void aTextSearchWithoutCreatedAfterLooksBackTheSearchWindowAndSaysSo() {
        String marker = "marker-" + UUID.randomUUID();
        String old = submit(SUBMITTER, "{\"note\":\"" + marker + "\"}");
        Sql.run(db, "update tasks set created_at = now() - interval '2 days' where id = ?", UUID.fromString(old));

        Response windowed = given().auth().oauth2(SUBMITTER).queryParam("text", marker).get("/api/v1/tasks");
        windowed.then().statusCode(200).body("items.size()", equalTo(0));
        Instant from = Instant.parse(windowed.header("Searched-Created-After"));
        assertTrue(Duration.between(from, Instant.now().minus(Duration.ofHours(24))).abs().toMinutes() < 1,
                "the window's start, 24 h ago: " + from);
        // The count gives the window's start with its other bound, so that an action given both (the dashboard's
        // confirmation) takes the tasks counted, not the key's whole history.
        Response counted = count(Map.of("text", marker));
        counted.then().statusCode(200).body("count", equalTo(0)).header("Searched-Created-After", notNullValue());
        assertEquals(Instant.parse(counted.header("Searched-Created-After")),
                Instant.parse(counted.jsonPath().getString("createdAfter")), "the count's createdAfter is its window's");

        String threeDaysAgo = Instant.now().minus(3, ChronoUnit.DAYS).toString();
        given().auth().oauth2(SUBMITTER).queryParam("text", marker).queryParam("createdAfter", threeDaysAgo)
                .get("/api/v1/tasks").then().statusCode(200).body("items[0].id", equalTo(old))
                .header("Searched-Created-After", nullValue());
        given().auth().oauth2(SUBMITTER).get("/api/v1/tasks").then().statusCode(200)
                .header("Searched-Created-After", nullValue());
    }

    @Test
    void theLaterPagesOfASearchKeepItsFirstPagesWindow() {
        String marker = "paged-" + UUID.randomUUID();
        String older = submit(SUBMITTER, "{\"note\":\"" + marker + "\"}");
        String newer = submit(SUBMITTER, "{\"note\":\"" + marker + "\"}");
        Response first = given().auth().oauth2(SUBMITTER).queryParam("text", marker).queryParam("limit", 1)
                .get("/api/v1/tasks");
        first.then().statusCode(200).body("items[0].id", equalTo(newer));
        String from = first.header("Searched-Created-After");
        // The clock has moved on since the first page: a window taken afresh would start later, and skip the tasks of
        // the first page's window that it slid past.
        given().auth().oauth2(SUBMITTER).queryParam("text", marker).queryParam("limit", 1)
                .queryParam("after", first.jsonPath().getString("next")).get("/api/v1/tasks").then().statusCode(200)
                .body("items[0].id", equalTo(older)).header("Searched-Created-After", equalTo(from));
    }

    @Test
    void aReadPastTheReadTimeoutIsAProblemThatSaysToNarrowTheFilter() throws Exception {
        try (Connection holder = tableHeld()) {
            long started = System.nanoTime();
            count(Map.of("text", "anything")).then().statusCode(422)
                    .contentType("application/problem+json")
                    .body("detail", containsString("narrow it"))
                    .body("detail", containsString("createdAfter"))
                    .body("detail", containsString("taskfence.api.read-timeout"));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(tookMillis < 5_000, "stopped at the read time-out (1 s), took " + tookMillis + " ms");
            holder.rollback();
        }
    }

    @Test
    void onlyAReadOfTheReadsPoolStoppedByItsTimeOutIsATooBroadRead() {
        String sleep = "select pg_sleep(3)";
        TaskStoreException read = assertThrows(TaskStoreException.class,
                () -> CDI.current().select(ReadDatabase.class).get().read(connection -> connection.createStatement()
                        .execute(sleep)));
        assertTrue(read.readTimedOut(), "a read past the read time-out: " + read.getMessage());
        // The same cancel on the data path (an operator's pg_cancel_backend, a session's own time-out) is no read
        // too broad: it is answered as a failure of the database, not as "narrow the filter".
        TaskStoreException data = assertThrows(TaskStoreException.class,
                () -> CDI.current().select(TaskDatabase.class).get().inTransaction(connection -> {
                    connection.createStatement().execute("set local statement_timeout = '100ms'");
                    return connection.createStatement().execute(sleep);
                }));
        assertFalse(data.readTimedOut(), "a data-path statement cancelled: " + data.getMessage());
    }

    /**
     * The first search holds its key's place while it waits for a connection of the reads pool, which the test holds
     * whole: up to the pool's acquisition time-out (5 s), where a wait for a lock would end at the read time-out (1 s
     * here), on a busy machine before the second search arrived. The second is checked to come while the first waits.
     */
    @Test
    void aKeysSearchPastItsCapIsRefused429WithRetryAfterWhileAnotherKeysIsNot() throws Exception {
        AgroalDataSource reads = CDI.current().select(AgroalDataSource.class, new DataSourceLiteral("reads")).get();
        List<Connection> held = new ArrayList<>();
        CompletableFuture<Integer> first;
        try {
            held.add(reads.getConnection());
            held.add(reads.getConnection());
            first = CompletableFuture.supplyAsync(() -> count(Map.of("text", "first")).statusCode());
            await().atMost(Duration.ofSeconds(5)).until(() -> reads.getMetrics().awaitingCount() > 0);

            Response refused = given().auth().oauth2(SUBMITTER).queryParam("text", "second").get("/api/v1/tasks");
            assertFalse(first.isDone(), () -> "the first search ended before the second was answered: " + first.join());
            refused.then().statusCode(429).contentType("application/problem+json")
                    .body("detail", containsString("taskfence.api.searches-per-key"));
            assertTrue(Integer.parseInt(refused.header("Retry-After")) >= 1, "Retry-After: " + refused.header("Retry-After"));
            // A listing without text or error holds no place: it is served from an index.
            CompletableFuture<Integer> plain = CompletableFuture.supplyAsync(() ->
                    given().auth().oauth2(SUBMITTER).get("/api/v1/tasks").statusCode());
            CompletableFuture<Integer> others = CompletableFuture.supplyAsync(() -> given().auth()
                    .oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).queryParam("text", "x").get("/api/v1/tasks/count")
                    .statusCode());
            held.forEach(ReadBulkheadsTest::close);
            held.clear();
            assertTrue(List.of(200, 422).contains(plain.get(10, TimeUnit.SECONDS)), "the plain listing was not capped");
            assertTrue(List.of(200, 422).contains(others.get(10, TimeUnit.SECONDS)), "another key's count was not capped");
        } finally {
            held.forEach(ReadBulkheadsTest::close);
        }
        assertTrue(List.of(200, 422).contains(first.get(10, TimeUnit.SECONDS)));
        count(Map.of("text", "third")).then().statusCode(200); // the places were given back
    }

    @Test
    void aKeysLongPollsPastItsCapAreRefused429AndAWaitlessReadIsNot() throws Exception {
        String task = submit(SUBMITTER, "{}");
        CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> given().auth().oauth2(SUBMITTER)
                .queryParam("wait", "3s").get("/api/v1/tasks/" + task).statusCode());
        Response refused = await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3))
                .until(() -> given().auth().oauth2(SUBMITTER).queryParam("wait", "1ms").get("/api/v1/tasks/" + task),
                        answer -> answer.statusCode() == 429);
        refused.then().contentType("application/problem+json")
                .body("detail", containsString("taskfence.api.long-polls-per-key"));
        assertTrue(refused.header("Retry-After") != null);
        given().auth().oauth2(SUBMITTER).get("/api/v1/tasks/" + task).then().statusCode(200);
        given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).queryParam("wait", "1ms").get("/api/v1/tasks/" + task)
                .then().statusCode(404); // another key's long-poll is its own
        assertEquals(200, waiting.get(10, TimeUnit.SECONDS), "the first wait was answered at its end");
        given().auth().oauth2(SUBMITTER).queryParam("wait", "1ms").get("/api/v1/tasks/" + task).then().statusCode(200);

        CompletableFuture<Integer> claiming = CompletableFuture.supplyAsync(() -> claim("3s").statusCode());
        Response claimRefused = await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3))
                .until(() -> claim("1ms"), answer -> answer.statusCode() == 429);
        claimRefused.then().body("detail", containsString("taskfence.api.claim-waits-per-key"));
        claim(null).then().statusCode(200); // a claim that does not wait holds no place
        assertEquals(200, claiming.get(10, TimeUnit.SECONDS));
    }

    @Test
    void readinessReportsBothPoolsAndIsDownOnlyWhileTheDataPoolIsExhausted() throws Exception {
        AgroalDataSource reads = CDI.current().select(AgroalDataSource.class, new DataSourceLiteral("reads")).get();
        List<Connection> held = new ArrayList<>();
        try {
            held.add(reads.getConnection());
            held.add(reads.getConnection());
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
                try (Connection third = reads.getConnection()) {
                    // taken once one is given back
                } catch (SQLException e) {
                    // its acquisition timed out: what it waited for is done
                }
            });
            await().atMost(Duration.ofSeconds(3)).until(() -> Boolean.TRUE.equals(poolData("reads.exhausted")));
            HealthCheckResponse check = pools();
            assertEquals(HealthCheckResponse.Status.UP, check.getStatus(), "an exhausted reads pool leaves the replica "
                    + "ready: " + check.getData());
            assertEquals(2L, check.getData().orElseThrow().get("reads.max"));
            assertEquals(2L, check.getData().orElseThrow().get("reads.active"));
            assertEquals(6L, check.getData().orElseThrow().get("data.max"));
            held.forEach(ReadBulkheadsTest::close);
            held.clear();
            waiter.get(10, TimeUnit.SECONDS);

            for (int i = 0; i < 6; i++) {
                held.add(db.getConnection());
            }
            CompletableFuture<Void> dataWaiter = CompletableFuture.runAsync(() -> {
                try (Connection seventh = db.getConnection()) {
                    // taken once one is given back
                } catch (SQLException e) {
                    // its acquisition timed out
                }
            });
            await().atMost(Duration.ofSeconds(3)).until(() -> pools().getStatus() == HealthCheckResponse.Status.DOWN);
            assertEquals(true, poolData("data.exhausted"));
            held.forEach(ReadBulkheadsTest::close);
            held.clear();
            dataWaiter.get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(3)).until(() -> pools().getStatus() == HealthCheckResponse.Status.UP);
        } finally {
            held.forEach(ReadBulkheadsTest::close);
        }
    }

    /** The pools' readiness check, alone: the datasource's own check would wait for a connection of the full pool. */
    private static HealthCheckResponse pools() {
        return CDI.current().select(HealthCheck.class, Readiness.Literal.INSTANCE).handlesStream()
                .filter(check -> check.getBean().getBeanClass().getSimpleName().equals("PoolReadiness")).findFirst()
                .orElseThrow().get().call();
    }

    private static Object poolData(String key) {
        return pools().getData().orElseThrow().get(key);
    }

    /** A transaction of the test's holding the task table against every read until it rolls back. */
    private Connection tableHeld() throws SQLException {
        Connection holder = db.getConnection();
        holder.setAutoCommit(false);
        try (Statement lock = holder.createStatement()) {
            lock.execute("lock table tasks in access exclusive mode");
        }
        return holder;
    }

    private static void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Response count(Map<String, String> query) {
        return given().auth().oauth2(SUBMITTER).queryParams(query).get("/api/v1/tasks/count");
    }

    private static Response claim(String wait) {
        String body = "{\"types\":[\"ocr\"]" + (wait == null ? "" : ",\"wait\":\"" + wait + "\"") + "}";
        return given().auth().oauth2(ApiKeysForTests.WORKER_KEY).contentType("application/json").body(body)
                .post("/api/v1/claims");
    }

    private static String submit(String key, String payload) {
        return given().auth().oauth2(key).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":" + payload + "}").post("/api/v1/tasks").then().statusCode(201)
                .extract().path("id");
    }
}

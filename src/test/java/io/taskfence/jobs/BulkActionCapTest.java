package io.taskfence.jobs;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.TestServers;

/**
 * A key's running bulk actions are capped (DESIGN.md, "Bulk actions"): past five, a start is refused 429 with
 * Retry-After, on every replica at once; and the actions job gives the keys turns, so one key's many actions hold
 * another key's single one back by a batch at most. The job is run here by the test (dispatch is off in the test
 * profile), so nothing moves while the requests are sent.
 */
@QuarkusTest
@TestServers
class BulkActionCapTest {

    private static final String KEY_A = ApiKeysForTests.SUBMIT_KEY;
    private static final String KEY_A_NAME = ApiKeysForTests.SUBMIT_KEY_NAME;
    private static final String KEY_B = ApiKeysForTests.OTHER_SUBMIT_KEY;
    private static final String KEY_B_NAME = ApiKeysForTests.OTHER_SUBMIT_KEY_NAME;
    private static final int CAP = 5;
    private static final int BATCH = 500;

    @Inject
    BulkActions job;
    @Inject
    DataSource db;

    @TestHTTPResource("/api/v1/tasks/actions/cancel")
    URI cancel;

    private final String marker = "cap-" + UUID.randomUUID();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    @AfterEach
    void endTheKeysActionsAndDeleteThisTestsTasks() {
        // Other tests' actions of these keys would count against the cap; this test's would against the next one's.
        Sql.run(db, "update task_actions set state = 'DONE', finished_at = now() where state = 'RUNNING' "
                + "and requested_by in (?, ?)", KEY_A_NAME, KEY_B_NAME);
        Sql.run(db, "delete from tasks where payload ->> 'marker' = ?", marker);
    }

    @Test
    void ofFiveThousandDistinctActionsOfOneKeyFiveRunAndAnotherKeysActionEndsWithinFiveSeconds() throws Exception {
        seed(KEY_A_NAME, 20_000);
        seed(KEY_B_NAME, 1);
        Instant base = Instant.parse("2000-01-01T00:00:00Z");

        // Distinct filters (a nanosecond apart), each matching A's 20,000 tasks: five start, the sixth is refused.
        for (int i = 0; i < CAP; i++) {
            assertEquals(202, start(KEY_A, base.plusNanos(i)).statusCode(), "request " + i);
        }
        assertRefused(requested(KEY_A, base.plusNanos(CAP)));
        // And so are all the others, sent from a few clients at once.
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int client = 0; client < 4; client++) {
                int first = CAP + 1 + client;
                sent.add(clients.submit(() -> {
                    for (int i = first; i < 5_000; i += 4) {
                        assertRefused(requested(KEY_A, base.plusNanos(i)));
                    }
                    return null;
                }));
            }
            for (Future<?> client : sent) {
                client.get(10, TimeUnit.MINUTES);
            }
        } finally {
            clients.shutdownNow();
        }
        assertEquals(CAP, running(KEY_A_NAME), "exactly five running");
        assertEquals(CAP, Sql.count(db, "select count(*) from task_actions where requested_by = ? "
                + "and filter ->> 'text' = ?", KEY_A_NAME, marker), "nothing else was stored");

        UUID b = UUID.fromString(given().auth().oauth2(KEY_B).contentType("application/json")
                .body("{\"text\":\"" + marker + "\"}").post("/api/v1/tasks/actions/cancel").then().statusCode(202)
                .extract().path("id"));
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService leader = Executors.newSingleThreadExecutor();
        Future<?> runs = leader.submit(() -> {
            while (!stop.get()) {
                job.run();
                Thread.sleep(20);
            }
            return null;
        });
        try {
            // A's five actions take 40 batches; B's takes one, and its turn comes second.
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> "DONE".equals(
                    Sql.value(db, "select state from task_actions where id = ?", b)));
            assertEquals(CAP, running(KEY_A_NAME), "A's actions still run");
        } finally {
            stop.set(true);
            runs.get(60, TimeUnit.SECONDS);
            leader.shutdown();
        }
        given().auth().oauth2(KEY_B).get("/api/v1/actions/" + b).then().statusCode(200).body("state", equalTo("DONE"))
                .body("total", equalTo(1)).body("changed", equalTo(1));
    }

    @Test
    void manyStartsOfOneKeyAtOnceNeverLeaveMoreThanFiveRunning() throws Exception {
        int racers = 40;
        Instant base = Instant.parse("2001-01-01T00:00:00Z");
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        List<Future<Integer>> answers = new ArrayList<>();
        try {
            for (int r = 0; r < racers; r++) {
                Instant createdAfter = base.plusNanos(r);
                answers.add(pool.submit(() -> {
                    go.await();
                    return start(KEY_A, createdAfter).statusCode();
                }));
            }
            go.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get(60, TimeUnit.SECONDS));
            }
            assertEquals(CAP, statuses.stream().filter(status -> status == 202).count(), statuses::toString);
            assertEquals(racers - CAP, statuses.stream().filter(status -> status == 429).count(), statuses::toString);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(CAP, running(KEY_A_NAME));
        // An identical request still answers the running action, at the cap too.
        given().auth().oauth2(KEY_A).contentType("application/json")
                .body("{\"text\":\"" + marker + "\",\"createdAfter\":\"" + base.plusNanos(racers) + "\"}")
                .post("/api/v1/tasks/actions/cancel").then().statusCode(429)
                .header("Retry-After", equalTo("10")).contentType("application/problem+json")
                .body("detail", containsString("taskfence.actions.max-running-per-key"));
        String runningFilter = Sql.value(db, "select filter ->> 'createdAfter' from task_actions where requested_by = ? "
                + "and state = 'RUNNING' limit 1", KEY_A_NAME);
        given().auth().oauth2(KEY_A).contentType("application/json")
                .body("{\"text\":\"" + marker + "\",\"createdAfter\":\"" + runningFilter + "\"}")
                .post("/api/v1/tasks/actions/cancel").then().statusCode(200).body("state", equalTo("RUNNING"));
    }

    /**
     * Key A has twenty actions running (made by SQL, past its cap), each with a thousand tasks; B's single action,
     * asked for last, ends after one batch of A's, not after a batch of each of A's actions.
     */
    @Test
    void oneKeysManyActionsHoldAnotherKeysActionBackByOneBatch() {
        int actionsOfA = 20;
        for (int i = 0; i < actionsOfA; i++) {
            String mine = marker + "/" + i + "/";
            Sql.run(db, "insert into tasks (id, type, payload, max_attempts, owner) select gen_random_uuid(), 'noop', "
                    + "jsonb_build_object('marker', ?::text, 'action', ?::text), 1, ? from generate_series(1, 1000)",
                    marker, mine, KEY_A_NAME);
            Sql.run(db, "insert into task_actions (id, action, scope_owner, filter, requested_by, state, total) "
                    + "values (gen_random_uuid(), 'cancel', ?, jsonb_build_object('text', ?::text, 'statuses', "
                    + "'[\"ENQUEUED\", \"FAILED\", \"PENDING\", \"PROCESSING\", \"WAITING\"]'::jsonb), ?, 'RUNNING', 0)",
                    KEY_A_NAME, mine, KEY_A_NAME);
        }
        seed(KEY_B_NAME, 1);
        UUID b = UUID.fromString(given().auth().oauth2(KEY_B).contentType("application/json")
                .body("{\"text\":\"" + marker + "\"}").post("/api/v1/tasks/actions/cancel").then().statusCode(202)
                .extract().path("id"));

        // A run stops once it has taken an interval (1 s), checked before each batch: on a busy machine one batch of
        // A's may take that long, and then B's turn comes first in the next run.
        String stateOfB = "select state from task_actions where id = ?";
        for (int run = 0; run < 3 && !"DONE".equals(Sql.value(db, stateOfB, b)); run++) {
            job.run();
        }

        assertEquals("DONE", Sql.value(db, stateOfB, b), "B's action after 3 runs");
        // A batch's tasks and its action's end share their transaction's time, now(): these were cancelled before.
        long cancelledBefore = Sql.count(db, "select count(*) from tasks where owner = ? and payload ->> 'marker' = ? "
                + "and status = 'CANCELLED' and updated_at < (select finished_at from task_actions where id = ?)",
                KEY_A_NAME, marker, b);
        assertTrue(cancelledBefore <= BATCH, cancelledBefore + " of A's tasks were cancelled before B's action ended");
    }

    /**
     * A client's transaction holds a row of A's action's batch: that batch gives up after taskfence.job-lock-timeout
     * (2 s) and A's action sits out the rest of the run, so B's action, asked for later, still ends while the row is
     * held; once the client lets go, A's action ends too.
     */
    @Test
    void aRowAClientHoldsKeepsOnlyItsOwnActionWaiting() throws Exception {
        seed(KEY_A_NAME, 3);
        seed(KEY_B_NAME, 3);
        String held = Sql.value(db, "select id from tasks where owner = ? and payload ->> 'marker' = ? limit 1",
                KEY_A_NAME, marker);
        // A connection of the test's own, as a client's: one of the service's pool would be ended by its
        // idle_in_transaction_session_timeout (10 s), letting the row go by itself.
        String schema = Sql.value(db, "select current_schema()");
        try (Connection client = DriverManager.getConnection(PostgresSchema.DATABASE_URL + "?currentSchema=" + schema,
                PostgresSchema.USER, "")) {
            try (Statement session = client.createStatement()) {
                session.execute("set idle_in_transaction_session_timeout = 0");
            }
            client.setAutoCommit(false);
            try (PreparedStatement hold = client.prepareStatement("select id from tasks where id = ?::uuid for update")) {
                hold.setString(1, held);
                try (ResultSet row = hold.executeQuery()) {
                    assertTrue(row.next(), "the held task exists");
                }
            }
            UUID a = startCancel(KEY_A);
            UUID b = startCancel(KEY_B);
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService leader = Executors.newSingleThreadExecutor();
            Future<?> runs = leader.submit(() -> {
                while (!stop.get()) {
                    job.run();
                    Thread.sleep(20);
                }
                return null;
            });
            try {
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> "DONE".equals(
                        Sql.value(db, "select state from task_actions where id = ?", b)));
                assertEquals("RUNNING", Sql.value(db, "select state from task_actions where id = ?", a),
                        "A's action waits for the held row");
                assertEquals("PENDING", Sql.value(db, "select status from tasks where id = ?::uuid", held));

                client.rollback();
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> "DONE".equals(
                        Sql.value(db, "select state from task_actions where id = ?", a)));
            } finally {
                stop.set(true);
                runs.get(60, TimeUnit.SECONDS);
                leader.shutdown();
            }
            given().auth().oauth2(KEY_B).get("/api/v1/actions/" + b).then().statusCode(200)
                    .body("state", equalTo("DONE")).body("total", equalTo(3)).body("changed", equalTo(3));
            given().auth().oauth2(KEY_A).get("/api/v1/actions/" + a).then().statusCode(200)
                    .body("state", equalTo("DONE")).body("total", equalTo(3)).body("changed", equalTo(3));
            assertEquals(3, Sql.count(db, "select count(*) from tasks where owner = ? and payload ->> 'marker' = ? "
                    + "and status = 'CANCELLED'", KEY_A_NAME, marker));
        }
    }

    private UUID startCancel(String key) {
        return UUID.fromString(given().auth().oauth2(key).contentType("application/json")
                .body("{\"text\":\"" + marker + "\"}").post("/api/v1/tasks/actions/cancel").then().statusCode(202)
                .extract().path("id"));
    }

    /** A 429 naming the cap and its setting, with Retry-After. */
    private static void assertRefused(HttpResponse<String> answer) {
        assertEquals(429, answer.statusCode(), answer.body());
        assertEquals("10", answer.headers().firstValue("Retry-After").orElse(null));
        assertTrue(answer.body().contains(CAP + " bulk actions running")
                && answer.body().contains("taskfence.actions.max-running-per-key"), answer.body());
    }

    private void seed(String owner, int tasks) {
        Sql.run(db, "insert into tasks (id, type, payload, max_attempts, owner) select gen_random_uuid(), 'noop', "
                + "jsonb_build_object('marker', ?::text), 1, ? from generate_series(1, ?)", marker, owner, tasks);
    }

    private ExtractableResponse<Response> start(String key, Instant createdAfter) {
        return given().auth().oauth2(key).contentType("application/json")
                .body("{\"text\":\"" + marker + "\",\"createdAfter\":\"" + createdAfter + "\"}")
                .post("/api/v1/tasks/actions/cancel").then().extract();
    }

    /** {@link #start}, sent with the JDK's client: it costs the test far less a request than RestAssured does. */
    private HttpResponse<String> requested(String key, Instant createdAfter) throws Exception {
        return http.send(HttpRequest.newBuilder(cancel).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"text\":\""
                        + marker + "\",\"createdAfter\":\"" + createdAfter + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private long running(String key) {
        return Sql.count(db, "select count(*) from task_actions where requested_by = ? and state = 'RUNNING'", key);
    }
}

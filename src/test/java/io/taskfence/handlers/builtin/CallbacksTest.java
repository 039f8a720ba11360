package io.taskfence.handlers.builtin;

import static io.restassured.RestAssured.given;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.WorkersWithHookServer;

/**
 * Callbacks (DESIGN.md, "Callbacks"), with dispatch and workers running and the {@link LocalHookServer} on the
 * allow-list ({@link WorkersWithHookServer}): each end of a task that names a callback makes one
 * {@code callback} task, which POSTs the task's view as it ended, and is retried while the server answers 500.
 */
@QuarkusTest
@TestServers
@TestProfile(WorkersWithHookServer.class)
class CallbacksTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The bodies each path received, and how many times each answered 2xx. */
    private static final Map<String, List<JsonNode>> RECEIVED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> ANSWERED_OK = new ConcurrentHashMap<>();

    /** Injected by {@link LocalHookServer}: running, and on the allow-list. */
    HttpServer server;
    @Inject
    DataSource db;

    @Test
    void eachEndIsPostedOnceItIsAnsweredAndRetriedWhileTheServerAnswers500() throws Exception {
        String path = "/callback-" + UUID.randomUUID();
        AtomicInteger calls = new AtomicInteger();
        route(path, () -> calls.incrementAndGet() <= 2 ? 500 : 200);

        String id = submit("{\"type\":\"noop\",\"payload\":{\"order\":17},\"callback\":{\"url\":\"" + url(path) + "\"}}");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/" + id).then()
                .body("callback.url", equalTo(url(path))).body("callback.maxAttempts", equalTo(5));
        UUID callback = awaitCallbackOf(id, 1).getFirst();
        await().atMost(WAIT).until(() -> "SUCCEEDED".equals(status(callback)));

        assertEquals(3, RECEIVED.get(path).size(), "two answers of 500, then one of 200");
        assertEquals(1, ANSWERED_OK.get(path).get(), "delivered once");
        assertEquals(3, Integer.parseInt(value("select attempt from tasks where id = ?", callback)),
                "the callback task was retried as a task is");
        JsonNode view = RECEIVED.get(path).getLast();
        assertEquals(List.of(id, "SUCCEEDED", "noop", 17, ApiKeysForTests.SUBMIT_KEY_NAME),
                List.of(view.path("id").asText(), view.path("status").asText(), view.path("type").asText(),
                        view.path("payload").path("order").asInt(), view.path("owner").asText()));
        assertEquals(ApiKeysForTests.SUBMIT_KEY_NAME, value("select owner from tasks where id = ?", callback),
                "the callback task is the owner's, as its task");
    }

    /** A task's every end is told: DEAD, then SUCCEEDED after a retry; a cancel too. */
    @Test
    void everyEndOfATaskIsToldOnceDeadCancelledAndSucceededAfterARetry() throws Exception {
        String path = "/callback-" + UUID.randomUUID();
        route(path, () -> 200);
        String callback = ",\"callback\":{\"url\":\"" + url(path) + "\",\"maxAttempts\":2}";

        // An http task whose first call is answered 404 (DEAD at once), its second 200.
        String target = "/target-" + UUID.randomUUID();
        AtomicInteger targetCalls = new AtomicInteger();
        route(target, () -> targetCalls.incrementAndGet() == 1 ? 404 : 200);
        String dead = submit("{\"type\":\"http\",\"payload\":{\"url\":\"" + url(target) + "\"}" + callback + "}");
        awaitCallbackOf(dead, 1);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + dead + "/retry").then().statusCode(200);
        List<UUID> deadsCallbacks = awaitCallbackOf(dead, 2);
        String cancelled = submit("{\"type\":\"noop\",\"payload\":{},\"runAt\":\"" + Instant.now().plusSeconds(3600)
                + "\"" + callback + "}");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + cancelled + "/cancel").then()
                .statusCode(200);
        List<UUID> all = new ArrayList<>(deadsCallbacks);
        all.addAll(awaitCallbackOf(cancelled, 1));
        await().atMost(WAIT).until(() -> all.stream().allMatch(id -> "SUCCEEDED".equals(status(id))));

        assertEquals(3, ANSWERED_OK.get(path).get());
        assertEquals(List.of(dead + "/DEAD", dead + "/SUCCEEDED", cancelled + "/CANCELLED").stream().sorted().toList(),
                RECEIVED.get(path).stream().map(view -> view.path("id").asText() + "/" + view.path("status").asText())
                        .sorted().toList());
        assertEquals("2", value("select max_attempts from tasks where id = ?", all.getFirst()));
    }

    @Test
    void aCallbackTheHandlerCouldNotCallIsRefusedAtSubmission() {
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{},\"callback\":{\"url\":\"http://example.com/hook\"}}")
                .post("/api/v1/tasks").then().statusCode(422).contentType("application/problem+json")
                .body("field", equalTo("callback.url")).body("detail", containsString("taskfence.http.allowed-hosts"));
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{},\"callback\":{\"url\":\"" + url("/x") + "\",\"maxAttempts\":0}}")
                .post("/api/v1/tasks").then().statusCode(400).body("violations[0].field", equalTo("callback.maxAttempts"));
    }

    private interface Answer {
        int status();
    }

    private void route(String path, Answer answer) {
        RECEIVED.put(path, new CopyOnWriteArrayList<>());
        ANSWERED_OK.put(path, new AtomicInteger());
        server.createContext(path, exchange -> {
            RECEIVED.get(path).add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
            int status = answer.status();
            if (status / 100 == 2) {
                ANSWERED_OK.get(path).incrementAndGet();
            }
            byte[] body = "{}".getBytes(UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private static String submit(String body) {
        return given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(body)
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id");
    }

    /** The callback tasks of {@code task}, once there are {@code count}, oldest first. */
    private List<UUID> awaitCallbackOf(String task, int count) {
        return await().atMost(WAIT).until(() -> {
            List<UUID> ids = new ArrayList<>();
            try (Connection connection = db.getConnection(); PreparedStatement select = connection.prepareStatement(
                    "select id from tasks where type = 'callback' and payload -> 'task' ->> 'id' = ? order by created_at")) {
                select.setString(1, task);
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        ids.add(row.getObject(1, UUID.class));
                    }
                }
            }
            return ids;
        }, ids -> ids.size() == count);
    }

    private String status(UUID id) {
        try {
            return value("select status from tasks where id = ?", id);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String value(String sql, Object parameter) throws SQLException {
        try (Connection connection = db.getConnection(); PreparedStatement select = connection.prepareStatement(sql)) {
            select.setObject(1, parameter);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }
    }
}

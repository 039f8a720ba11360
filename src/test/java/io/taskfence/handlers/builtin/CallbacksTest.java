package io.taskfence.handlers.builtin;

import static io.restassured.RestAssured.given;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
        // At least: an attempt whose call never reached the server (seen under CI's load, HttpHandlerTest) is one more.
        int attempts = Integer.parseInt(value("select attempt from tasks where id = ?", callback));
        assertTrue(attempts >= 3, "the callback task was retried as a task is: " + attempts + " attempts");
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

    /**
     * Every callback is signed for the key whose task it is (Standard Webhooks): a receiver holding that key's secret
     * accepts it, refuses it with one byte of the body changed, and refuses another key's.
     */
    @Test
    void eachCallbackIsSignedWithItsOwnersSecretAndATamperedOneIsRefused() throws Exception {
        String path = "/signed-" + UUID.randomUUID();
        List<Delivery> deliveries = receive(path);
        String mine = submit("{\"type\":\"noop\",\"payload\":{\"order\":1},\"callback\":{\"url\":\"" + url(path) + "\"}}");
        String others = submit(ApiKeysForTests.OTHER_SUBMIT_KEY,
                "{\"type\":\"noop\",\"payload\":{\"order\":2},\"callback\":{\"url\":\"" + url(path) + "\"}}");
        UUID myCallback = awaitCallbackOf(mine, 1).getFirst();
        UUID othersCallback = awaitCallbackOf(others, 1).getFirst();
        await().atMost(WAIT).until(() -> deliveries.size() == 2);

        WebhookVerifier myReceiver = WebhookVerifier.derivedFromApiKey(ApiKeysForTests.SUBMIT_KEY);
        WebhookVerifier othersReceiver = new WebhookVerifier(WorkersWithHookServer.OTHER_CALLBACK_SECRET);
        Delivery my = deliveryOf(deliveries, mine);
        Delivery other = deliveryOf(deliveries, others);
        assertEquals(myCallback.toString(), my.id(), "webhook-id is the callback task's id");
        assertEquals(othersCallback.toString(), other.id());
        assertTrue(myReceiver.verifies(my.id(), my.timestamp(), my.signature(), my.body()),
                "signed with the secret derived from the owner's key");
        assertTrue(othersReceiver.verifies(other.id(), other.timestamp(), other.signature(), other.body()),
                "signed with the owner's own callback-secret");
        assertFalse(othersReceiver.verifies(my.id(), my.timestamp(), my.signature(), my.body()), "another key's secret");
        assertFalse(myReceiver.verifies(other.id(), other.timestamp(), other.signature(), other.body()));
        assertFalse(WebhookVerifier.derivedFromApiKey(ApiKeysForTests.OTHER_SUBMIT_KEY)
                .verifies(other.id(), other.timestamp(), other.signature(), other.body()), "its callback-secret, not the derived one");
        byte[] tampered = new String(my.body(), UTF_8).replace("\"order\":1", "\"order\":9").getBytes(UTF_8);
        assertFalse(myReceiver.verifies(my.id(), my.timestamp(), my.signature(), tampered), "a changed body");
        assertFalse(myReceiver.verifies(othersCallback.toString(), my.timestamp(), my.signature(), my.body()),
                "another message's id");
    }

    /** A retried callback is signed again: the same {@code webhook-id}, each attempt's own timestamp and signature. */
    @Test
    void eachAttemptOfACallbackIsSignedAfresh() throws Exception {
        String path = "/retried-" + UUID.randomUUID();
        AtomicInteger calls = new AtomicInteger();
        List<Delivery> deliveries = receive(path, () -> calls.incrementAndGet() == 1 ? 500 : 200);
        UUID callback = awaitCallbackOf(submit("{\"type\":\"noop\",\"payload\":{},\"callback\":{\"url\":\""
                + url(path) + "\"}}"), 1).getFirst();
        await().atMost(WAIT).until(() -> "SUCCEEDED".equals(status(callback)));

        WebhookVerifier receiver = WebhookVerifier.derivedFromApiKey(ApiKeysForTests.SUBMIT_KEY);
        assertEquals(2, deliveries.size());
        for (Delivery delivery : deliveries) {
            assertEquals(callback.toString(), delivery.id());
            assertTrue(receiver.verifies(delivery.id(), delivery.timestamp(), delivery.signature(), delivery.body()));
        }
    }

    /**
     * Another key cannot make a POST its victim's receiver accepts: its {@code http} task sends no signature (a
     * payload's {@code headers} are not headers), and a {@code callback} task it submits itself is signed with its own
     * secret, whatever its body says.
     */
    @Test
    void anotherKeysHttpOrCallbackTaskCarriesNoSignatureOfTheVictim() throws Exception {
        String path = "/forged-" + UUID.randomUUID();
        List<Delivery> deliveries = receive(path);
        String forged = "{\"id\":\"" + UUID.randomUUID() + "\",\"status\":\"SUCCEEDED\",\"owner\":\""
                + ApiKeysForTests.SUBMIT_KEY_NAME + "\",\"via\":\"%s\"}";
        submit(ApiKeysForTests.OTHER_SUBMIT_KEY, "{\"type\":\"http\",\"payload\":{\"url\":\"" + url(path)
                + "\",\"body\":" + forged.formatted("http") + ",\"headers\":{\"webhook-id\":\"m\",\"webhook-timestamp\":\""
                + Instant.now().getEpochSecond() + "\",\"webhook-signature\":\"v1,AAAA\"}}}");
        String callback = submit(ApiKeysForTests.OTHER_SUBMIT_KEY, "{\"type\":\"callback\",\"payload\":{\"url\":\""
                + url(path) + "\",\"task\":" + forged.formatted("callback") + "}}");
        await().atMost(WAIT).until(() -> deliveries.size() == 2);

        WebhookVerifier victim = WebhookVerifier.derivedFromApiKey(ApiKeysForTests.SUBMIT_KEY);
        Delivery byHttp = deliveryVia(deliveries, "http");
        assertEquals(Arrays.asList(null, null, null), Arrays.asList(byHttp.id(), byHttp.timestamp(), byHttp.signature()),
                "an http task sends no webhook-* header, whatever its payload says");
        Delivery byCallback = deliveryVia(deliveries, "callback");
        assertEquals(callback, byCallback.id());
        assertFalse(victim.verifies(byCallback.id(), byCallback.timestamp(), byCallback.signature(), byCallback.body()));
        assertTrue(new WebhookVerifier(WorkersWithHookServer.OTHER_CALLBACK_SECRET)
                .verifies(byCallback.id(), byCallback.timestamp(), byCallback.signature(), byCallback.body()),
                "signed as its submitter's");
    }

    /**
     * A callback's body is bounded as a payload is: a result over 64 KiB is left out, with where to read it, and a long
     * error is cut; the callback task's stored payload stays small.
     */
    @Test
    void aResultOver64KiBIsLeftOutOfTheCallbackWithWhereToReadItAndALongErrorIsCut() throws Exception {
        String path = "/large-" + UUID.randomUUID();
        List<Delivery> deliveries = receive(path);
        // Three attempts, though one reaches the server: a call that does not (seen under CI's load) is tried again.
        String callback = ",\"callback\":{\"url\":\"" + url(path) + "\",\"maxAttempts\":3}";
        String large = submit("{\"type\":\"large-result\",\"payload\":{\"chars\":70000}" + callback + "}");
        String small = submit("{\"type\":\"large-result\",\"payload\":{\"chars\":1000}" + callback + "}");
        String failed = submit("{\"type\":\"large-result\",\"payload\":{\"chars\":100000,\"fail\":true},"
                + "\"maxAttempts\":1" + callback + "}");
        UUID largesCallback = awaitCallbackOf(large, 1).getFirst();
        awaitCallbackOf(failed, 1);
        await().atMost(WAIT).until(() -> deliveries.size() == 3);

        JsonNode largeView = JSON.readTree(deliveryOf(deliveries, large).body());
        assertEquals(List.of(false, true, "/api/v1/tasks/" + large), List.of(largeView.has("result"),
                largeView.path("resultTruncated").asBoolean(), largeView.path("resultPath").asText()));
        assertTrue(Integer.parseInt(value("select octet_length(payload::text) from tasks where id = ?", largesCallback))
                < 64 * 1024, "the callback task's payload is small");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get(largeView.path("resultPath").asText()).then()
                .body("result.text.length()", equalTo(70000));
        JsonNode smallView = JSON.readTree(deliveryOf(deliveries, small).body());
        assertEquals(List.of(1000, false), List.of(smallView.path("result").path("text").asText().length(),
                smallView.has("resultTruncated")));
        JsonNode failedView = JSON.readTree(deliveryOf(deliveries, failed).body());
        assertEquals(List.of("DEAD", 16384, true), List.of(failedView.path("status").asText(),
                failedView.path("lastError").asText().length(), failedView.path("lastErrorTruncated").asBoolean()));
    }

    /** One POST as received: its webhook-* headers (null when absent) and its raw body. */
    private record Delivery(String id, String timestamp, String signature, byte[] body) {
    }

    /** The POSTs to {@code path}, each answered 200. */
    private List<Delivery> receive(String path) {
        return receive(path, () -> 200);
    }

    /** The POSTs to {@code path}, each answered as {@code answer} says. */
    private List<Delivery> receive(String path, Answer answer) {
        List<Delivery> deliveries = new CopyOnWriteArrayList<>();
        server.createContext(path, exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            deliveries.add(new Delivery(exchange.getRequestHeaders().getFirst("webhook-id"),
                    exchange.getRequestHeaders().getFirst("webhook-timestamp"),
                    exchange.getRequestHeaders().getFirst("webhook-signature"), body));
            exchange.sendResponseHeaders(answer.status(), -1);
            exchange.close();
        });
        return deliveries;
    }

    private static Delivery deliveryVia(List<Delivery> deliveries, String via) throws IOException {
        for (Delivery delivery : deliveries) {
            if (via.equals(JSON.readTree(delivery.body()).path("via").asText())) {
                return delivery;
            }
        }
        throw new AssertionError("nothing was received via " + via);
    }

    private static Delivery deliveryOf(List<Delivery> deliveries, String task) throws IOException {
        for (Delivery delivery : deliveries) {
            if (task.equals(JSON.readTree(delivery.body()).path("id").asText())) {
                return delivery;
            }
        }
        throw new AssertionError("no callback of " + task + " was received");
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
        return submit(ApiKeysForTests.SUBMIT_KEY, body);
    }

    private static String submit(String key, String body) {
        return given().auth().oauth2(key).contentType("application/json").body(body)
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

package io.taskfence.worker;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.taskfence.task.Task;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A webhook's answer that PostgreSQL cannot store as sent (a number it overflows on, or one too long to read back)
 * ends its own task DEAD with the reason, at its first attempt, and is never part of a batch of other tasks'
 * successes: a task finishing beside it is SUCCEEDED with its result, and the dead task reads back (no 500). The
 * longest answer the handler keeps (64 KiB, truncated and escaped into its result) is stored.
 */
@QuarkusTest
@TestServers
@TestProfile(WorkersWithHookServer.class)
class UnstorableResultTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Set<TaskStatus> FINISHED = Set.of(TaskStatus.SUCCEEDED, TaskStatus.DEAD);

    @Inject
    TaskQueries queries;
    /** Injected by the profile's LocalHookServer. */
    HttpServer server;

    @Test
    void anAnswerPostgresCannotStoreEndsOnlyItsOwnTaskDeadWithTheReason() {
        // The longest answer the handler keeps, escaped in its result: more than a payload may be, and stored.
        String big = "{\"s\":\"" + "\\\"".repeat(40_000) + "\"}";
        Map<String, String> answers = Map.of("/overflows-numeric", "{\"n\":1e200000}", "/too-long-to-read-back",
                "{\"n\":1e5000}", "/fine", "{\"ok\":true}", "/big", big);
        answers.forEach((path, answer) -> server.createContext(path, exchange -> {
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            } catch (IOException ignored) {
                // the caller went away; its task says so
            }
        }));
        try {
            UUID overflowing = submit("/overflows-numeric");
            UUID tooLong = submit("/too-long-to-read-back");
            UUID fine = submit("/fine");
            UUID large = submit("/big");
            List<UUID> all = List.of(overflowing, tooLong, fine, large);
            await("all three finished").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .until(() -> all.stream().allMatch(id -> FINISHED.contains(queries.find(id).orElseThrow().status())));

            assertEquals(TaskStatus.SUCCEEDED, queries.find(fine).orElseThrow().status());
            assertTrue(queries.find(fine).orElseThrow().result().path("body").path("ok").asBoolean());
            assertEquals(TaskStatus.SUCCEEDED, queries.find(large).orElseThrow().status());
            assertTrue(queries.find(large).orElseThrow().result().path("bodyTruncated").asBoolean());
            assertDeadFor(overflowing, "a number of more than 1000 digits written out (200001 at result.body.n)");
            assertDeadFor(tooLong, "a number of more than 1000 digits written out (5001 at result.body.n)");
            given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks/{id}", tooLong).then().statusCode(200);
        } finally {
            answers.keySet().forEach(server::removeContext);
        }
    }

    private void assertDeadFor(UUID id, String reason) {
        Task task = queries.find(id).orElseThrow();
        assertEquals(TaskStatus.DEAD, task.status(), "task " + id);
        assertEquals(1, task.attempt(), "the handler is not run again for the same answer");
        assertEquals("the handler succeeded, but its result cannot be stored: it contains " + reason, task.lastError());
    }

    private UUID submit(String path) {
        Response created = given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"http\",\"payload\":{\"url\":\"http://127.0.0.1:" + server.getAddress().getPort()
                        + path + "\"},\"maxAttempts\":3}")
                .post("/api/v1/tasks");
        created.then().statusCode(201);
        return UUID.fromString(created.path("id"));
    }
}

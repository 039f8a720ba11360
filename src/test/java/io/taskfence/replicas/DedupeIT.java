package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Dedupe keys across three packaged replicas (issue 44): a thousand debounces of one key sent to all three at once
 * leave one task, which runs once, with the last payload, after the period; a stream of debounces longer than maxWait
 * has its task run by its first submission + maxWait, and the submissions after that start make a new task.
 */
class DedupeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int SUBMISSIONS = 1000;
    private static final Duration PERIOD = Duration.ofSeconds(10);

    @Test
    void aThousandDebouncesOfOneKeyAcrossThreeReplicasRunOneTaskOnceWithTheLastPayloadAfterThePeriod()
            throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            String dedupe = "\"dedupe\":{\"key\":\"customer-17\",\"mode\":\"debounce\",\"period\":\""
                    + PERIOD.toSeconds() + "s\"}";
            ExecutorService clients = Executors.newFixedThreadPool(48);
            try {
                warmUp(cluster, clients);
                // The peer figure: as many plain submissions (no key, due in an hour), sent the same way just before.
                String inAnHour = Instant.now().plusSeconds(3600).toString();
                Duration plain = sendAtOnce(cluster, clients, i -> "{\"type\":\"noop\",\"payload\":{\"plain\":" + i
                        + "},\"runAt\":\"" + inAnHour + "\"}", new ArrayList<>());
                List<JsonNode> answers = new ArrayList<>();
                long started = System.nanoTime();
                sendAtOnce(cluster, clients, i -> "{\"type\":\"noop\",\"payload\":{\"n\":" + i + "}," + dedupe + "}",
                        answers);
                Set<String> ids = new LinkedHashSet<>();
                answers.forEach(answer -> ids.add(answer.get("id").asText()));
                // The last one, sent after every other was answered: its payload is the one the task runs with.
                JsonNode last = answer(cluster.post(cluster.replicas().get(2), "/api/v1/tasks",
                        "{\"type\":\"noop\",\"payload\":{\"n\":\"last\"}," + dedupe + "}"));
                ids.add(last.get("id").asText());
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                assertEquals(1, ids.size(), "every submission answered one task: " + ids);
                UUID task = UUID.fromString(ids.iterator().next());
                assertEquals(1L, count(cluster, "select count(*) from tasks where payload ->> 'n' is not null"), "tasks stored");

                awaitStatus(cluster, List.of(task), "SUCCEEDED", Duration.ofSeconds(60));
                List<Instant> starts = starts(cluster, task);
                assertEquals(1, starts.size(), "the task ran once: " + starts);
                Instant lastSubmitted = Instant.parse(last.get("updatedAt").asText());
                assertFalse(starts.getFirst().isBefore(lastSubmitted.plus(PERIOD)), "the task started at "
                        + starts.getFirst() + ", before the last submission (" + lastSubmitted + ") + the period");
                assertEquals("last", value(cluster, "select payload ->> 'n' from tasks where id = ?", task),
                        "the payload it ran with");
                assertEquals(String.valueOf(SUBMISSIONS - 1), value(cluster, "select count(*) from task_events "
                        + "where task_id = ? and note like 'debounced%'", task), "debounces in its history");
                System.out.printf("%s: %d debounces of one key in %d ms (%d plain submissions: %d ms) left one task, "
                        + "which started %d ms after the last%n", cluster, SUBMISSIONS, took.toMillis(), SUBMISSIONS - 1,
                        plain.toMillis(), Duration.between(lastSubmitted, starts.getFirst()).toMillis());
            } finally {
                clients.shutdownNow();
            }
            assertTransitionsAreEdges(cluster);
        }
    }

    @Test
    void aStreamOfDebouncesRunsItsTaskByTheFirstSubmissionPlusMaxWaitAndTheNextOnesMakeANewTask() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            String body = "{\"type\":\"noop\",\"payload\":{},\"dedupe\":{\"key\":\"stream\",\"mode\":\"debounce\","
                    + "\"period\":\"2s\",\"maxWait\":\"4s\"}}";
            List<JsonNode> answers = new ArrayList<>();
            // One every 250 ms, round the replicas, until the first task has started and a second one answers.
            Instant giveUp = Instant.now().plusSeconds(60);
            while (answers.stream().map(answer -> answer.get("id").asText()).distinct().count() < 2) {
                assertTrue(Instant.now().isBefore(giveUp), "no second task within 60 s: " + answers.size() + " answers");
                answers.add(answer(cluster.post(cluster.replicas().get(answers.size() % 3), "/api/v1/tasks", body)));
                Thread.sleep(250);
            }
            JsonNode first = answers.getFirst();
            UUID task = UUID.fromString(first.get("id").asText());
            Instant created = Instant.parse(first.get("createdAt").asText());
            // Held at its bound, the first submission (once its key's lock was held) + maxWait, while debounces went on.
            List<JsonNode> ofFirst = answers.stream().filter(answer -> answer.get("id").asText().equals(task.toString()))
                    .toList();
            Instant runBy = Instant.parse(ofFirst.getLast().get("runAt").asText());
            assertEquals(runBy, Instant.parse(ofFirst.get(ofFirst.size() - 2).get("runAt").asText()),
                    "the last two debounces of the first task left its runAt at its bound: " + ofFirst);
            assertFalse(runBy.isBefore(created.plusSeconds(4)), "bound " + runBy + ", created " + created);
            assertTrue(runBy.isBefore(created.plusSeconds(5)), "bound " + runBy + ", created " + created);
            for (JsonNode answer : ofFirst) {
                assertFalse(Instant.parse(answer.get("runAt").asText()).isAfter(runBy),
                        "a debounce moved runAt past the first submission + maxWait: " + answer);
            }
            awaitStatus(cluster, List.of(task), "SUCCEEDED", Duration.ofSeconds(60));
            List<Instant> starts = starts(cluster, task);
            assertEquals(1, starts.size(), "the first task ran once: " + starts);
            assertFalse(starts.getFirst().isBefore(runBy), "it started before first + maxWait (" + starts.getFirst()
                    + ", bound " + runBy + "): the stream kept it waiting for its bound");
            System.out.printf("%s: %d debounces in a stream; the first task started %d ms after its first submission%n",
                    cluster, answers.size(), Duration.between(created, starts.getFirst()).toMillis());
        }
    }

    /**
     * Debounces of keys of their own on every replica, answered before the thousand go: the thousand's time (printed)
     * is then the service's, not the freshly started replicas' compilers'.
     */
    private static void warmUp(ReplicaCluster cluster, ExecutorService clients) throws Exception {
        List<Future<JsonNode>> warming = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            PackagedService replica = cluster.replicas().get(i % 3);
            String body = "{\"type\":\"noop\",\"payload\":{},\"dedupe\":{\"key\":\"warm-up-" + (i % 6)
                    + "\",\"mode\":\"debounce\",\"period\":\"1h\"}}";
            warming.add(clients.submit(() -> answer(cluster.post(replica, "/api/v1/tasks", body))));
        }
        for (Future<JsonNode> answer : warming) {
            answer.get();
        }
    }

    /**
     * Sends {@code SUBMISSIONS - 1} bodies round the replicas from the client threads, all released at once; their
     * answers into {@code answers}, in the order sent.
     */
    private static Duration sendAtOnce(ReplicaCluster cluster, ExecutorService clients, IntFunction<String> body,
            List<JsonNode> answers) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<JsonNode>> sent = new ArrayList<>();
        for (int i = 0; i < SUBMISSIONS - 1; i++) {
            PackagedService replica = cluster.replicas().get(i % 3);
            String json = body.apply(i);
            sent.add(clients.submit(() -> {
                go.await();
                return answer(cluster.post(replica, "/api/v1/tasks", json));
            }));
        }
        long started = System.nanoTime();
        go.countDown();
        for (Future<JsonNode> answer : sent) {
            answers.add(answer.get());
        }
        return Duration.ofNanos(System.nanoTime() - started);
    }

    private static JsonNode answer(HttpResponse<String> response) throws Exception {
        assertTrue(response.statusCode() == 200 || response.statusCode() == 201, response.body());
        return JSON.readTree(response.body());
    }

    /** When each attempt of the task started, from its history. */
    private static List<Instant> starts(ReplicaCluster cluster, UUID task) throws SQLException {
        List<Instant> starts = new ArrayList<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select at from "
                + "task_events where task_id = ? and to_status = 'PROCESSING' order by id")) {
            query.setObject(1, task);
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    starts.add(row.getTimestamp(1).toInstant());
                }
            }
        }
        return starts;
    }

    private static long count(ReplicaCluster cluster, String sql) throws SQLException {
        return Long.parseLong(value(cluster, sql, null));
    }

    private static String value(ReplicaCluster cluster, String sql, UUID task) throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(sql)) {
            if (task != null) {
                query.setObject(1, task);
            }
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }
    }
}

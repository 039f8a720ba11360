package io.taskfence.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import io.taskfence.client.ClaimedTask;
import io.taskfence.client.TaskfenceClient;
import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * {@code GET /tasks/{id}?wait=} on one replica is woken by the task ending on another: 200 tasks, each waited for on
 * replica A and completed by a remote worker through replica B. How soon after the end each answer came (the end on
 * PostgreSQL's clock, {@code updated_at} of the success; the answer on this process's clock, the same machine's) is
 * printed, p50 and p99: issue 28 asks for a p99 within 50 ms.
 */
class WaitForResultIT {

    private static final int TASKS = 200;

    @Test
    void aWaitingReadIsWokenByTheEndOnAnotherReplicaAndHowSoonIsPrinted() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(2, RemoteTypeSettings.ENVIRONMENT)) {
            PackagedService waiter = cluster.replicas().getFirst();
            PackagedService finisher = cluster.replicas().getLast();
            TaskfenceClient worker = TaskfenceClient.of(finisher.uri("/").toString(), RemoteTypeSettings.WORKER_KEY);
            HttpClient http = HttpClient.newHttpClient();
            List<Long> lateMillis = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                String id = cluster.post(waiter, "/api/v1/tasks", "{\"type\":\"resize\",\"payload\":{\"n\":" + i + "}}")
                        .body().replaceAll(".*\"id\":\"([0-9a-f-]{36})\".*", "$1");
                CompletableFuture<Instant> answered = http.sendAsync(HttpRequest.newBuilder(waiter.uri("/api/v1/tasks/"
                        + id + "?wait=30s")).header("Authorization", "Bearer " + ReplicaCluster.ADMIN_KEY).build(),
                        HttpResponse.BodyHandlers.ofString()).thenApply(answer -> {
                            Instant at = Instant.now();
                            assertEquals(200, answer.statusCode(), answer.body());
                            assertTrue(answer.body().contains("\"status\":\"SUCCEEDED\""), answer.body());
                            return at;
                        });
                List<ClaimedTask> claimed = List.of();
                while (claimed.isEmpty()) {
                    claimed = worker.claim(List.of(RemoteTypeSettings.TYPE), 1, Duration.ofSeconds(10), "finisher");
                }
                assertEquals(id, claimed.getFirst().taskId());
                worker.complete(claimed.getFirst(), Map.of("n", i));
                lateMillis.add(Duration.between(endedAt(cluster, id), answered.get()).toMillis());
            }
            Collections.sort(lateMillis);
            long p99 = lateMillis.get((int) Math.ceil(TASKS * 0.99) - 1);
            System.out.println("?wait= answered after the end: p50 " + lateMillis.get(TASKS / 2) + " ms, p99 " + p99
                    + " ms, max " + lateMillis.getLast() + " ms");
            // Woken by the end, not by the wait running out (30 s): how soon is a figure to report (issue 28 asks
            // for a p99 within 50 ms), not a timing to assert on a busy machine.
            assertTrue(lateMillis.getLast() < 10_000, "an answer waited for its wait to run out: " + lateMillis);
        }
    }

    private static Instant endedAt(ReplicaCluster cluster, String id) throws Exception {
        try (Connection connection = cluster.database();
                PreparedStatement select = connection.prepareStatement("select updated_at from tasks where id = ?")) {
            select.setObject(1, UUID.fromString(id));
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getObject(1, OffsetDateTime.class).toInstant();
            }
        }
    }
}

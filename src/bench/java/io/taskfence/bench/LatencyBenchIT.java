package io.taskfence.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Submit → start on an idle cluster of three packaged replicas (default dispatch interval, 1 s): noop tasks
 * submitted one at a time, spread over the replicas, each after a pause that lets the one before it finish,
 * timed by PostgreSQL's clock from the task's {@code created_at} to the moment a worker's claim made it
 * PROCESSING ({@code at} of its ENQUEUED → PROCESSING row in ReplicaCluster's {@code transition_audit}). So it
 * measures the path a submission's nudge takes: the dispatch lock, the fenced enqueue, the push to the stream,
 * a worker's read and its claim.
 * <p>
 * {@code created_at} is {@code now()} of the submission's transaction, i.e. when it began; {@code
 * TaskTransitions.submit} runs its INSERT alone in autocommit, so that is the INSERT's start, just before its
 * commit. The HTTP request's parsing and validation before it are left out; its commit is counted.
 */
class LatencyBenchIT {

    private static final int TASKS = 200;
    /**
     * Submitted and run first, not counted, for each of the drain's warm-up rounds: a fresh JVM runs the path
     * interpreted, then compiles it for a while. After 20 tasks p50 was 11.3 ms, after 400 it was 7.6 ms: the
     * native binary's figure is the warm one.
     */
    private static final int WARM_UP_TASKS_PER_ROUND = 100;
    private static final Duration PAUSE = Duration.ofMillis(50);
    private static final String NOOP = "{\"type\":\"noop\",\"payload\":{}}";

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void submitToStartOnAnIdleCluster() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            try {
                int warmUpTasks = Math.max(20, WARM_UP_TASKS_PER_ROUND * BenchResults.warmUps());
                awaitSucceeded(cluster, submitOneAtATime(cluster, warmUpTasks));
                List<UUID> measured = submitOneAtATime(cluster, TASKS);
                awaitSucceeded(cluster, measured);
                List<Double> millis = submitToStartMillis(cluster, measured);
                assertEquals(TASKS, millis.size(), "tasks with an ENQUEUED → PROCESSING transition");
                System.out.printf("[bench] latency: min %.1f ms, max %.1f ms over %d tasks%n", millis.getFirst(),
                        millis.getLast(), millis.size());
                BenchResults.record("latency.p50", nearestRank(millis, 50));
                BenchResults.record("latency.p99", nearestRank(millis, 99));
            } finally {
                ServiceLogs.printProblems(cluster.replicas());
            }
        }
    }

    /** Submits {@code count} noop tasks in turn to each replica, pausing between them so each finds the cluster idle. */
    private List<UUID> submitOneAtATime(ReplicaCluster cluster, int count) throws Exception {
        List<PackagedService> replicas = cluster.replicas();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            HttpResponse<String> created = cluster.post(replicas.get(i % replicas.size()), "/api/v1/tasks", NOOP);
            assertEquals(201, created.statusCode(), created.body());
            ids.add(UUID.fromString(json.readTree(created.body()).path("id").asText()));
            Thread.sleep(PAUSE);
        }
        return ids;
    }

    private static void awaitSucceeded(ReplicaCluster cluster, List<UUID> ids) throws Exception {
        try (Connection db = cluster.database()) {
            Object[] array = ids.toArray();
            await(ids.size() + " tasks SUCCEEDED (" + cluster + ")").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> Rows.count(db, "select count(*) from tasks where status = 'SUCCEEDED' and id = any(?)",
                            db.createArrayOf("uuid", array)) == ids.size());
        }
    }

    /** Each task's submit → start time in milliseconds, by PostgreSQL's clock, in ascending order. */
    private static List<Double> submitToStartMillis(ReplicaCluster cluster, List<UUID> ids) throws Exception {
        List<Double> millis = new ArrayList<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(
                "select extract(epoch from min(a.at) - t.created_at) * 1000 from tasks t "
                        + "join transition_audit a on a.task = t.id "
                        + "where a.from_status = 'ENQUEUED' and a.to_status = 'PROCESSING' and t.id = any(?) "
                        + "group by t.id, t.created_at order by 1")) {
            query.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    millis.add(row.getDouble(1));
                }
            }
        }
        return millis;
    }

    /** The {@code percent}th percentile of ascending {@code values} by nearest rank: the ⌈p/100 · n⌉th value. */
    private static double nearestRank(List<Double> values, int percent) {
        int rank = (int) Math.ceil(percent / 100.0 * values.size());
        return values.get(Math.max(1, rank) - 1);
    }
}

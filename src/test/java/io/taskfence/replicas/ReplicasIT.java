package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertOneDispatcherAtATime;
import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.awaitTrue;
import static io.taskfence.replicas.ClusterChecks.countBy;
import static io.taskfence.replicas.ClusterChecks.processingOn;
import static io.taskfence.replicas.ClusterChecks.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * The service as it runs in production: three replicas of the packaged application, separate processes on
 * separate ports, against one PostgreSQL schema and one Redis. These tests share work between them, retry and
 * stop one gracefully ({@link ReplicaFailuresIT} kills, pauses and cuts off part of the cluster), and check
 * what users rely on: every task finishes, none is dispatched or run twice without cause, one dispatcher writes
 * at a time with rising tokens, and every status change the replicas made is an edge of the state machine
 * (recorded by a trigger, so none is missed between two looks).
 */
class ReplicasIT {

    @Test
    void twoThousandNoopTasksRunOnceEachSharedByAllReplicasUnderOneDispatcherAtATime() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of("TASKFENCE_DISPATCH_BATCH_SIZE", "100"))) {
            List<UUID> ids = submit(cluster, cluster.replicas(), 2000, i -> "{\"type\":\"noop\",\"payload\":{\"n\":" + i + "}}");

            awaitStatus(cluster, ids, "SUCCEEDED", Duration.ofSeconds(120));
            assertEquals(Map.of(1, 2000L), countBy(cluster, "attempt", ids), "attempts per task");
            assertEquals(Map.of(1, 2000L), countBy(cluster, "enqueues", ids), "times each task was pushed to the queue");
            Set<String> ranOn = replicasIn(cluster, "select distinct worker from tasks");
            assertEquals(Set.of("replica-0", "replica-1", "replica-2"), ranOn, "the replicas that ran tasks");
            Set<String> dispatchers = assertOneDispatcherAtATime(cluster, 2000);
            System.out.printf("%s: tasks ran on %s; dispatched by %s%n", cluster, ranOn, dispatchers);
            assertTransitionsAreEdges(cluster);
        }
    }

    @Test
    void flakyTasksSucceedAfterTheirFailuresAndExhaustedOnesAreDeadWithTheirLastError() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            List<UUID> recovering = submit(cluster, cluster.replicas(), 20,
                    i -> "{\"type\":\"flaky\",\"payload\":{\"failTimes\":2},\"maxAttempts\":5}");
            List<UUID> exhausted = submit(cluster, cluster.replicas(), 20,
                    i -> "{\"type\":\"flaky\",\"payload\":{\"failTimes\":9},\"maxAttempts\":3}");

            awaitStatus(cluster, recovering, "SUCCEEDED", Duration.ofSeconds(90));
            awaitStatus(cluster, exhausted, "DEAD", Duration.ofSeconds(90));
            assertEquals(Map.of(3, 20L), countBy(cluster, "attempt", recovering));
            assertEquals(Map.of(3, 20L), countBy(cluster, "attempt", exhausted));
            assertEquals(Map.of("flaky: attempt 3 of 9 planned failures", 20L), countBy(cluster, "last_error", exhausted));
            assertTransitionsAreEdges(cluster);
        }
    }

    @Test
    void aReplicaStoppedWithSigtermFinishesItsTasksAndLeavesTheConsumerGroup() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            List<UUID> ids = submit(cluster, cluster.replicas(), 120, i -> "{\"type\":\"sleep\",\"payload\":{\"ms\":1500}}");
            PackagedService stopped = cluster.replica("replica-1");
            awaitTrue("replica-1 is running tasks", Duration.ofSeconds(60), () -> processingOn(cluster, stopped) >= 4);

            stopped.signal("TERM");
            assertTrue(stopped.process().waitFor(30, TimeUnit.SECONDS), "replica-1 exited");
            assertEquals(0, processingOn(cluster, stopped), "replica-1 left tasks PROCESSING behind");
            String consumers = cluster.redis("xinfo", "consumers", cluster.key("queue:{dispatch}"), "workers");
            assertFalse(consumers.contains("replica-1/"), "replica-1 left the consumer group: " + consumers);

            awaitStatus(cluster, ids, "SUCCEEDED", Duration.ofSeconds(120));
            assertEquals(Map.of(1, (long) ids.size()), countBy(cluster, "attempt", ids),
                    "a graceful stop costs no task an attempt");
            assertTransitionsAreEdges(cluster);
        }
    }

    // ---- plumbing (the checks shared with the other cluster tests are in ClusterChecks)

    /** The replica names in a column of claim ids ({@code <replica>/<consumer>/<claim>}). */
    private static Set<String> replicasIn(ReplicaCluster cluster, String sql) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(sql);
                ResultSet row = query.executeQuery()) {
            while (row.next()) {
                String worker = row.getString(1);
                if (worker != null) {
                    names.add(worker.substring(0, worker.indexOf('/')));
                }
            }
        }
        return names;
    }
}

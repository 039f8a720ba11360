package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.killReplicaRunningAGroupTask;
import static io.taskfence.replicas.ClusterChecks.submitInterleaved;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * A rate per key (issue 44) holds across three packaged replicas and a kill -9: three groups of fifty {@code sleep}
 * tasks with {@code rate-per-key} 5/s, submitted interleaved in one batch; a replica is killed while it runs one. From
 * the service's own history afterwards: no group started six attempts within a second, and the groups ran side by
 * side, not one after another.
 */
class GroupRatesIT {

    private static final int GROUPS = 3;
    private static final int TASKS_PER_GROUP = 50;
    private static final int RATE = 5;

    @Test
    void eachGroupStartsAtMostFiveTasksInAnySecondSideBySideThroughAKill() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of("TASKFENCE_TYPES_SLEEP_RATE_PER_KEY", RATE + "/s"))) {
            Map<String, List<UUID>> groups = submitInterleaved(cluster, GROUPS, TASKS_PER_GROUP, 200);
            List<UUID> all = groups.values().stream().flatMap(List::stream).toList();

            PackagedService victim = killReplicaRunningAGroupTask(cluster);

            awaitStatus(cluster, all, "SUCCEEDED", Duration.ofSeconds(180));
            Map<String, List<Instant>> starts = new LinkedHashMap<>();
            for (Map.Entry<String, List<UUID>> group : groups.entrySet()) {
                List<Instant> times = starts(cluster, group.getValue());
                assertTrue(times.size() >= TASKS_PER_GROUP, group.getKey() + ": " + times.size() + " starts");
                for (int i = 0; i + RATE < times.size(); i++) {
                    Duration span = Duration.between(times.get(i), times.get(i + RATE));
                    assertFalse(span.compareTo(Duration.ofSeconds(1)) < 0, group.getKey() + ": " + (RATE + 1)
                            + " starts within " + span.toMillis() + " ms, from " + times.get(i));
                }
                starts.put(group.getKey(), times);
            }
            // Side by side: each group's middle start falls within every other group's run of starts.
            for (Map.Entry<String, List<Instant>> group : starts.entrySet()) {
                Instant middle = group.getValue().get(group.getValue().size() / 2);
                for (Map.Entry<String, List<Instant>> other : starts.entrySet()) {
                    assertTrue(!middle.isBefore(other.getValue().getFirst()) && !middle.isAfter(other.getValue().getLast()),
                            group.getKey() + "'s middle start " + middle + " is outside " + other.getKey() + "'s run "
                                    + other.getValue().getFirst() + " .. " + other.getValue().getLast());
                }
            }
            System.out.printf("%s: %d groups of %d at %d/s each ran side by side in %d ms; %s killed%n", cluster,
                    GROUPS, TASKS_PER_GROUP, RATE, Duration.between(starts.values().stream().map(List::getFirst)
                            .min(Instant::compareTo).orElseThrow(), starts.values().stream().map(List::getLast)
                            .max(Instant::compareTo).orElseThrow()).toMillis(), victim.id());
            assertTransitionsAreEdges(cluster);
        }
    }

    /** Every attempt's start of {@code tasks}, from their history, in time order. */
    private static List<Instant> starts(ReplicaCluster cluster, List<UUID> tasks) throws SQLException {
        List<Instant> starts = new ArrayList<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select at from "
                + "task_events where task_id = any(?) and to_status = 'PROCESSING' order by at")) {
            query.setArray(1, db.createArrayOf("uuid", tasks.toArray()));
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    starts.add(row.getTimestamp(1).toInstant());
                }
            }
        }
        return starts;
    }
}

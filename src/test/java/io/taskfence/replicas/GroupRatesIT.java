package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.UUID_IN_JSON;
import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.awaitValue;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;

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
            Map<String, List<UUID>> groups = submitInterleaved(cluster);
            List<UUID> all = groups.values().stream().flatMap(List::stream).toList();

            String worker = awaitValue("a replica runs a task of a group", Duration.ofSeconds(60),
                    () -> processingWorker(cluster));
            PackagedService victim = cluster.replica(worker.substring(0, worker.indexOf('/')));
            victim.signal("KILL");
            victim.process().waitFor();

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

    /** One batch: task j of every group, then task j + 1 of every group; each group's ids in submission order. */
    private static Map<String, List<UUID>> submitInterleaved(ReplicaCluster cluster) throws Exception {
        List<String> keys = new ArrayList<>();
        StringBuilder body = new StringBuilder("{\"tasks\":[");
        for (int j = 0; j < TASKS_PER_GROUP; j++) {
            for (int g = 0; g < GROUPS; g++) {
                keys.add("customer-" + g);
                body.append(keys.size() > 1 ? "," : "").append("{\"type\":\"sleep\",\"payload\":{\"ms\":200},"
                        + "\"concurrencyKey\":\"customer-").append(g).append("\"}");
            }
        }
        HttpResponse<String> response = cluster.post(cluster.replicas().getFirst(), "/api/v1/tasks/batch",
                body.append("]}").toString());
        assertEquals(200, response.statusCode(), response.body());
        Map<String, List<UUID>> groups = new LinkedHashMap<>();
        Matcher id = UUID_IN_JSON.matcher(response.body());
        for (String key : keys) {
            assertTrue(id.find(), response.body());
            groups.computeIfAbsent(key, any -> new ArrayList<>()).add(UUID.fromString(id.group(1)));
        }
        return groups;
    }

    /** The worker of a task of a group PROCESSING now, or null. */
    private static String processingWorker(ReplicaCluster cluster) throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select worker from tasks "
                + "where type = 'sleep' and status = 'PROCESSING' and concurrency_key is not null limit 1");
                ResultSet row = query.executeQuery()) {
            return row.next() ? row.getString(1) : null;
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

package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.countBy;
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
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * A concurrency group limited to one (issue 27, build 2) holds across three packaged replicas and a kill -9: six
 * groups of eight {@code sleep} tasks, submitted interleaved in one batch; a replica is killed while it runs one of
 * them. Afterwards the service's own history (GET .../events reads the same view) must show, per group, no two
 * attempts PROCESSING at once and the tasks started in submission order, a task's retry before the next task.
 */
class ConcurrencyGroupsIT {

    private static final int GROUPS = 6;
    private static final int TASKS_PER_GROUP = 8;

    /** One attempt of a task: from its PROCESSING event to the task's next event (SUCCEEDED, or FAILED when its lease lapsed). */
    private record Attempt(UUID task, Instant start, Instant end) {
    }

    @Test
    void aGroupLimitedToOneRunsOneTaskAtATimeInSubmissionOrderThroughAKill() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of("TASKFENCE_TYPES_SLEEP_MAX_PER_KEY", "1"))) {
            // 1.5 s a task: the replica read as running one still does when the kill reaches it, on a busy machine too.
            Map<String, List<UUID>> groups = submitInterleaved(cluster, GROUPS, TASKS_PER_GROUP, 1500);
            List<UUID> all = groups.values().stream().flatMap(List::stream).toList();

            PackagedService victim = killReplicaRunningAGroupTask(cluster);
            List<UUID> held = ClusterChecks.uuids(cluster, "select id from tasks where status = 'PROCESSING' "
                    + "and worker like '" + victim.id() + "/%'");
            assertFalse(held.isEmpty(), victim.id() + " held no task when it died: the test proves nothing");

            awaitStatus(cluster, all, "SUCCEEDED", Duration.ofSeconds(120));
            assertEquals(Map.of(2, (long) held.size()), countBy(cluster, "attempt", held), "the tasks the killed replica held");

            for (Map.Entry<String, List<UUID>> group : groups.entrySet()) {
                List<Attempt> attempts = attempts(cluster, group.getValue());
                for (int i = 1; i < attempts.size(); i++) {
                    Attempt before = attempts.get(i - 1);
                    Attempt after = attempts.get(i);
                    assertFalse(after.start().isBefore(before.end()), "group " + group.getKey() + ": " + after
                            + " started while " + before + " was PROCESSING");
                }
                List<UUID> startOrder = new ArrayList<>();
                for (Attempt attempt : attempts) {
                    if (startOrder.isEmpty() || !startOrder.getLast().equals(attempt.task())) {
                        startOrder.add(attempt.task());
                    }
                }
                assertEquals(group.getValue(), startOrder, "group " + group.getKey()
                        + ": its tasks (each one's attempts together) in submission order");
            }
            System.out.printf("%s: %d groups of %d ran one at a time in order; %s killed holding %s%n", cluster,
                    GROUPS, TASKS_PER_GROUP, victim.id(), held);
            assertTransitionsAreEdges(cluster);
        }
    }

    /** The attempts of {@code tasks} from their history, by start. */
    private static List<Attempt> attempts(ReplicaCluster cluster, List<UUID> tasks) throws SQLException {
        Map<UUID, List<Object[]>> events = new LinkedHashMap<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select task_id, at, "
                + "to_status from task_events where task_id = any(?) order by task_id, id")) {
            query.setArray(1, db.createArrayOf("uuid", tasks.toArray()));
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    events.computeIfAbsent(row.getObject(1, UUID.class), any -> new ArrayList<>())
                            .add(new Object[] { row.getTimestamp(2).toInstant(), row.getString(3) });
                }
            }
        }
        List<Attempt> attempts = new ArrayList<>();
        events.forEach((task, history) -> {
            for (int i = 0; i < history.size(); i++) {
                if ("PROCESSING".equals(history.get(i)[1])) {
                    assertTrue(i + 1 < history.size(), "task " + task + " ended PROCESSING: " + describe(history));
                    attempts.add(new Attempt(task, (Instant) history.get(i)[0], (Instant) history.get(i + 1)[0]));
                }
            }
        });
        attempts.sort((a, b) -> a.start().compareTo(b.start()));
        return attempts;
    }

    private static String describe(List<Object[]> history) {
        return history.stream().map(event -> event[1] + "@" + event[0]).collect(Collectors.joining(", "));
    }
}

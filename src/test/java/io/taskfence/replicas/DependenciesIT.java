package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.awaitTrue;
import static io.taskfence.replicas.ClusterChecks.count;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Diamonds (A → B, A → C, B + C → D), each submitted in one batch, over three replicas of the packaged service while
 * the replica running a B is killed (kill -9): each D is released once, after its B and C SUCCEEDED, as the history
 * shows, and runs once (twice only if the killed replica held it); with C failing to DEAD, D ends CANCELLED and
 * never runs.
 */
class DependenciesIT {

    private static final int DIAMONDS = 30;

    @Test
    void diamondsRunTheirLastTaskOnceAfterBothBranchesWhileAReplicaIsKilled() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            List<List<UUID>> diamonds = new ArrayList<>();
            for (int i = 0; i < DIAMONDS; i++) {
                // B runs long enough for its replica to die under it.
                diamonds.add(diamond(cluster, cluster.replicas().get(i % 3), "{\"type\":\"sleep\",\"payload\":{\"ms\":1500}",
                        "{\"type\":\"noop\",\"payload\":{}"));
            }
            PackagedService victim = cluster.replica("replica-1");
            awaitTrue("replica-1 runs a B", Duration.ofSeconds(60), () -> count(cluster, "select count(*) from tasks "
                    + "where status = 'PROCESSING' and type = 'sleep' and worker like ?", victim.id() + "/%") >= 1);
            victim.signal("KILL");
            victim.process().waitFor();
            // Dead, it changes nothing more: what is PROCESSING under its name is what it held, and runs again.
            List<UUID> held = ClusterChecks.uuids(cluster, "select id from tasks where status = 'PROCESSING' "
                    + "and worker like ?", victim.id() + "/%");

            List<UUID> all = diamonds.stream().flatMap(List::stream).toList();
            awaitStatus(cluster, all, "SUCCEEDED", Duration.ofSeconds(180));
            assertTrue(count(cluster, "select count(*) from tasks where attempt > 1 and type = 'sleep'") >= 1,
                    "no B ran twice: the kill hit none running");
            for (List<UUID> diamond : diamonds) {
                UUID b = diamond.get(1);
                UUID c = diamond.get(2);
                UUID d = diamond.get(3);
                assertEquals(held.contains(d) ? 2 : 1, count(cluster, "select attempt from tasks where id = ?", d),
                        "D ran once (again only if the killed replica held it)");
                assertEquals(1, count(cluster, "select count(*) from task_events where task_id = ? "
                        + "and from_status = 'WAITING' and to_status = 'PENDING'", d), "D was released once");
                for (UUID branch : List.of(b, c)) {
                    assertEquals(1, count(cluster, "select count(*) from task_events r, task_events s "
                            + "where r.task_id = ? and r.to_status = 'PENDING' and r.from_status = 'WAITING' "
                            + "and s.task_id = ? and s.to_status = 'SUCCEEDED' and s.at <= r.at", d, branch),
                            "D was released after " + branch + " SUCCEEDED");
                }
            }
            assertTransitionsAreEdges(cluster);
        }
    }

    @Test
    void aBranchEndingDeadCancelsTheLastTaskWhichNeverRuns() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            List<List<UUID>> diamonds = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                diamonds.add(diamond(cluster, cluster.replicas().get(i % 3), "{\"type\":\"noop\",\"payload\":{}",
                        "{\"type\":\"flaky\",\"payload\":{\"failTimes\":9},\"maxAttempts\":2"));
            }
            List<UUID> lastOnes = diamonds.stream().map(diamond -> diamond.get(3)).toList();
            awaitStatus(cluster, lastOnes, "CANCELLED", Duration.ofSeconds(120));
            for (List<UUID> diamond : diamonds) {
                assertEquals(0, count(cluster, "select attempt from tasks where id = ?", diamond.get(3)), "D never ran");
                assertEquals(1, count(cluster, "select count(*) from tasks where id = ? and last_error = ?",
                        diamond.get(3), "dependency " + diamond.get(2) + " ended DEAD"));
            }
            assertTransitionsAreEdges(cluster);
        }
    }

    /** One diamond in one batch, with B and C the given bodies (each without its closing brace); A, B, C, D's ids. */
    private static List<UUID> diamond(ReplicaCluster cluster, PackagedService replica, String b, String c)
            throws Exception {
        String batch = "{\"tasks\":[{\"type\":\"noop\",\"payload\":{}}," + b + ",\"dependsOnItems\":[0]}," + c
                + ",\"dependsOnItems\":[0]},{\"type\":\"noop\",\"payload\":{},\"dependsOnItems\":[1,2]}]}";
        HttpResponse<String> answer = cluster.post(replica, "/api/v1/tasks/batch", batch);
        assertEquals(200, answer.statusCode(), answer.body());
        List<UUID> ids = new ArrayList<>();
        Matcher id = ClusterChecks.UUID_IN_JSON.matcher(answer.body());
        while (id.find()) {
            ids.add(UUID.fromString(id.group(1)));
        }
        assertEquals(4, ids.size(), answer.body());
        return ids;
    }
}

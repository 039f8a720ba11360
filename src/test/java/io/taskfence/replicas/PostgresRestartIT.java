package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertOneDispatcherAtATime;
import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.awaitTrue;
import static io.taskfence.replicas.ClusterChecks.count;
import static io.taskfence.replicas.ClusterChecks.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * PostgreSQL restarts under three replicas running tasks: their connections drop and new ones are refused
 * for a while (the replicas reach it through a path the test cuts; the machine's PostgreSQL, which other
 * tests share, keeps running). Users must see a 503 with Retry-After and the replicas go unready while it is
 * down, and everything work again once it is back: no task lost, none run twice unless its lease ran out,
 * which is then counted.
 */
class PostgresRestartIT {

    /** How a worker logs a success it could not record: the write failed, or came after the lease ended. */
    private static final Pattern UNRECORDED_SUCCESS = Pattern.compile(
            "task ([0-9a-f-]{36}) attempt \\d+ succeeded, but (recording it failed|the claim was no longer current)");
    private static final String TASK = "{\"type\":\"sleep\",\"payload\":{\"ms\":1500}}";

    @Test
    void whilePostgresIsDownSubmissionsAnswer503AndReplicasAreUnreadyAndAfterItNoTaskIsLost() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.startWithPostgresPath(3, Map.of())) {
            // Due together once every one is submitted, so that many run when PostgreSQL goes.
            String runAt = "\"runAt\":\"" + Instant.now().plusSeconds(4) + "\"";
            List<UUID> ids = new ArrayList<>(submit(cluster, cluster.replicas(), 120,
                    i -> "{\"type\":\"sleep\",\"payload\":{\"ms\":1500}," + runAt + "}"));
            awaitTrue("tasks are running", Duration.ofSeconds(60),
                    () -> count(cluster, "select count(*) from tasks where status = 'PROCESSING'") >= 6);
            assertTrue(count(cluster, "select count(*) from tasks where status <> 'SUCCEEDED'") > 40,
                    "most tasks had finished before PostgreSQL went down: the test proves nothing");

            cluster.cutPostgres();
            for (PackagedService replica : cluster.replicas()) {
                HttpResponse<String> refused = cluster.post(replica, "/api/v1/tasks", TASK);
                assertEquals(503, refused.statusCode(), replica.id() + ": " + refused.body());
                assertEquals(Optional.of("5"), refused.headers().firstValue("Retry-After"), replica.id());
                assertTrue(refused.body().contains("nothing was changed"), refused.body());
            }
            for (PackagedService replica : cluster.replicas()) {
                replica.awaitStatus("/q/health/ready", 503, Duration.ofSeconds(20));
                assertEquals(200, replica.status("/q/health/live"), replica.id() + " stays live");
            }
            // Down for longer than the 3 s processing lease: the attempts it interrupted are given up.
            Thread.sleep(4_000);

            cluster.restorePostgres();
            for (PackagedService replica : cluster.replicas()) {
                replica.awaitStatus("/q/health/ready", 200, Duration.ofSeconds(30));
            }
            // Every request after readiness returned succeeds: no connection broken by the restart is handed out.
            ids.addAll(submit(cluster, cluster.replicas(), 90, i -> TASK));

            awaitStatus(cluster, ids, "SUCCEEDED", Duration.ofSeconds(90));
            for (PackagedService replica : cluster.replicas()) {
                assertTrue(replica.process().isAlive(), replica.id() + " is still the process it was");
            }
            Set<UUID> rerun = new HashSet<>(ClusterChecks.uuids(cluster, "select id from tasks where attempt > 1"));
            // A success the worker could not record while its lease lasted (PostgreSQL was down, or the write
            // queued behind a failing one came after recovery had expired the lease) is run again, by the lease
            // rule; the worker logs it, but counts it in no metric.
            Set<UUID> unrecorded = new HashSet<>();
            for (PackagedService replica : cluster.replicas()) {
                Matcher logged = UNRECORDED_SUCCESS.matcher(replica.output());
                while (logged.find()) {
                    unrecorded.add(UUID.fromString(logged.group(1)));
                }
            }
            double lapsed = 0;
            for (PackagedService replica : cluster.replicas()) {
                lapsed += lapsedLeases(cluster, replica);
            }
            Set<UUID> rerunOtherwise = new HashSet<>(rerun);
            rerunOtherwise.removeAll(unrecorded);
            System.out.printf("%s: %d tasks; %d ran again, all after their lease expired: %d whose success could not "
                    + "be recorded, %d others; lapsed leases counted %.0f%n", cluster, ids.size(), rerun.size(),
                    rerun.size() - rerunOtherwise.size(), rerunOtherwise.size(), lapsed);
            assertEquals(0, count(cluster, "select count(*) from tasks where attempt > 1 and (last_error is null "
                    + "or last_error not like ?)", "processing lease expired%"),
                    "tasks that ran more than once without a lapsed lease");
            assertTrue(lapsed >= rerunOtherwise.size(), "every other task run again had its lease lapse here and "
                    + "counted (" + rerunOtherwise.size() + " run again, " + lapsed + " counted)");
            assertOneDispatcherAtATime(cluster, -1);
            assertTransitionsAreEdges(cluster);
        }
    }

    /** {@code taskfence_task_lease_lapsed_total} of the replica, summed over task types and stages. */
    private static double lapsedLeases(ReplicaCluster cluster, PackagedService replica) throws Exception {
        double sum = 0;
        for (String line : cluster.get(replica, "/q/metrics").body().split("\n")) {
            if (line.startsWith("taskfence_task_lease_lapsed_total{")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}

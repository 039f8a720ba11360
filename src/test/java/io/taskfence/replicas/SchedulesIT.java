package io.taskfence.replicas;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * A schedule that fires every second, on three packaged replicas, while the replica running the schedules job
 * is killed (SIGKILL) and then another is paused (SIGSTOP) past its 2 s lock lease and woken: from the first
 * occurrence made to the last, every second is exactly one task, and every one of them runs.
 */
class SchedulesIT {

    private static final String NAME = "every-second";
    private static final Duration POLL = Duration.ofMillis(200);

    @Test
    void everyOccurrenceIsOneTaskThroughAKillAndAPause() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            Instant created = Instant.now();
            HttpResponse<String> schedule = cluster.post(cluster.replicas().getFirst(), "/api/v1/schedules",
                    "{\"name\":\"" + NAME + "\",\"cron\":\"* * * * * ?\",\"type\":\"noop\",\"payload\":{}}");
            assertEquals(201, schedule.statusCode(), schedule.body());
            awaitTrue("the schedule made tasks", Duration.ofSeconds(20), () -> tasks(cluster).size() >= 3);

            // Kill the replica that ran the job last (its next run may be under way).
            PackagedService killed = cluster.replica(lastHolder(cluster));
            long tokenAtKill = token(cluster);
            killed.signal("KILL");
            killed.process().waitFor();
            Instant killedAt = Instant.now();
            awaitTrue("another replica runs the job", Duration.ofSeconds(20), () -> token(cluster) > tokenAtKill
                    && !lastHolder(cluster).equals(killed.id()));

            // Pause one of the two left, in the middle of a run if it can be caught holding the lock.
            String lockKey = cluster.key("lock:{schedules}");
            PackagedService paused = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            while (paused == null && System.nanoTime() < deadline) {
                String holder = cluster.redis("get", lockKey);
                if (holder.isEmpty()) {
                    continue;
                }
                PackagedService candidate = cluster.replica(holder.substring(0, holder.indexOf('/')));
                candidate.signal("STOP");
                if (holder.equals(cluster.redis("get", lockKey))) {
                    paused = candidate;
                } else {
                    candidate.signal("CONT");
                }
            }
            boolean caughtMidRun = paused != null;
            if (paused == null) {
                paused = cluster.replica(lastHolder(cluster));
                paused.signal("STOP");
            }
            Instant pausedAt = Instant.now();
            // Tokens issued by Redis, not the fence: a replica stopped inside its transaction holds the fence row
            // until it is woken. While it is stopped, a newer token is another replica's.
            String counterKey = cluster.key("fence:{schedules}");
            long tokenAtPause = Long.parseLong(cluster.redis("get", counterKey));
            awaitTrue("another replica took the lock over", Duration.ofSeconds(20),
                    () -> Long.parseLong(cluster.redis("get", counterKey)) > tokenAtPause);
            Thread.sleep(Math.max(0, 4_000 - Duration.between(pausedAt, Instant.now()).toMillis())); // past the 2 s lease
            paused.signal("CONT");
            Instant resumedAt = Instant.now();
            Thread.sleep(3_000);

            // The end of the window: nothing is made after this.
            try (Connection db = cluster.database();
                    PreparedStatement pause = db.prepareStatement("update schedules set paused = true, version = version + 1 "
                            + "where name = ?")) {
                pause.setString(1, NAME);
                assertEquals(1, pause.executeUpdate());
            }
            awaitTrue("every task made ran", Duration.ofSeconds(30), () -> count(cluster,
                    "select count(*) from tasks where idempotency_key like 'schedule:" + NAME + ":%' and status <> 'SUCCEEDED'") == 0);

            List<Instant> occurrences = tasks(cluster);
            System.out.printf("%s: %d occurrences from %s to %s; killed %s at %s, paused %s (%s) from %s to %s; it "
                    + "then reported %.0f lost leases and %.0f refused tokens%n", cluster, occurrences.size(),
                    occurrences.getFirst(), occurrences.getLast(), killed.id(), killedAt, paused.id(),
                    caughtMidRun ? "holding the lock" : "between runs", pausedAt, resumedAt,
                    metric(cluster, paused, "taskfence_lock_losses_total{lock=\"schedules\"}"),
                    metric(cluster, paused, "taskfence_fence_refusals_total{lock=\"schedules\"}"));
            for (int i = 1; i < occurrences.size(); i++) {
                assertEquals(occurrences.get(i - 1).plusSeconds(1), occurrences.get(i),
                        "the occurrence after " + occurrences.get(i - 1) + " (every one made: " + occurrences + ")");
            }
            assertTrue(!occurrences.getFirst().isBefore(created.minusSeconds(1)), "nothing before the schedule existed");
            assertTrue(occurrences.getFirst().isBefore(killedAt) && occurrences.getLast().isAfter(resumedAt),
                    "the occurrences span the kill and the pause: " + occurrences.getFirst() + " to " + occurrences.getLast());
            assertEquals(occurrences.size(), count(cluster, "select count(*) from tasks where idempotency_key like "
                    + "'schedule:" + NAME + ":%' and status = 'SUCCEEDED'"), "tasks of the schedule that ran");
        }
    }

    /**
     * The schedule's tasks' occurrences (what each one's idempotency key names), each checked to be a whole second and
     * alone with its key, in order. Not their run_at: a task the killed replica held failed by its lease and waits out
     * a backoff, which moves its run_at.
     */
    private static List<Instant> tasks(ReplicaCluster cluster) throws SQLException {
        List<Instant> occurrences = new ArrayList<>();
        String prefix = "schedule:" + NAME + ":";
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select idempotency_key, "
                + "count(*) over (partition by idempotency_key) from tasks where idempotency_key like ? "
                + "order by idempotency_key")) {
            query.setString(1, prefix + "%");
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    Instant runAt = Instant.parse(row.getString(1).substring(prefix.length()));
                    assertEquals(0, runAt.getNano(), "an occurrence of '* * * * * ?' is a whole second: " + runAt);
                    assertEquals(1, row.getLong(2), "tasks for the occurrence " + runAt);
                    occurrences.add(runAt);
                }
            }
        }
        return occurrences;
    }

    /** The replica whose token PostgreSQL saw last for the schedules job. */
    private static String lastHolder(ReplicaCluster cluster) throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(
                "select holder from fences where name = 'schedules'"); ResultSet row = query.executeQuery()) {
            assertTrue(row.next(), "the schedules job has not written yet");
            String holder = row.getString(1);
            return holder.substring(0, holder.indexOf('/'));
        }
    }

    /** A Prometheus sample of the replica's {@code /q/metrics}, 0 if it has not been recorded. */
    private static double metric(ReplicaCluster cluster, PackagedService replica, String sample) throws Exception {
        for (String line : cluster.get(replica, "/q/metrics").body().split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        return 0;
    }

    private static long token(ReplicaCluster cluster) throws SQLException {
        return count(cluster, "select coalesce(max(token), 0) from fences where name = 'schedules'");
    }

    private static long count(ReplicaCluster cluster, String sql) throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(sql);
                ResultSet row = query.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    private static void awaitTrue(String what, Duration atMost, Callable<Boolean> condition) {
        await(what).atMost(atMost).pollInterval(POLL).until(condition);
    }
}

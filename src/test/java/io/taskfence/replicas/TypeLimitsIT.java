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
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.ReplicaCluster;

/**
 * Type limits hold across the whole cluster (issue 13, item 3): three packaged replicas, each with 8 workers,
 * run 30 {@code sleep} tasks limited to 2 at once and 30 {@code noop} tasks limited to 5 started a second.
 * The checks read the audit trigger's record of every status change (with its time), so that a spike between
 * two looks at the table cannot go unseen; a poll of the table runs alongside as a second witness.
 */
class TypeLimitsIT {

    private static final Pattern UUID_IN_JSON = Pattern.compile("\"id\":\"([0-9a-f-]{36})\"");
    private static final int SLEEP_LIMIT = 2;
    private static final int NOOP_RATE = 5;

    @Test
    void aTypeLimitedToTwoNeverHasThreeRunningAndARateLimitedTypeStartsNoFasterThanItsRate() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of(
                "TASKFENCE_TYPES_SLEEP_MAX_CONCURRENCY", String.valueOf(SLEEP_LIMIT),
                "TASKFENCE_TYPES_NOOP_RATE", NOOP_RATE + "/s"))) {
            AtomicLong polledMost = new AtomicLong();
            AtomicBoolean polling = new AtomicBoolean(true);
            Thread poller = Thread.ofPlatform().start(() -> poll(cluster, polling, polledMost));
            try {
                List<UUID> sleeps = submit(cluster, 30, "{\"type\":\"sleep\",\"payload\":{\"ms\":200}}");
                List<UUID> noops = submit(cluster, 30, "{\"type\":\"noop\",\"payload\":{}}");
                await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
                        .until(() -> succeeded(cluster, sleeps) == sleeps.size() && succeeded(cluster, noops) == noops.size());
            } finally {
                polling.set(false);
                poller.join();
            }

            long mostProcessing = mostAtOnce(cluster, "sleep", List.of("PROCESSING"));
            long mostInFlight = mostAtOnce(cluster, "sleep", List.of("ENQUEUED", "PROCESSING"));
            List<Instant> starts = startTimes(cluster, "noop");
            System.out.printf("%s: sleep at most %d PROCESSING (%d polled), %d in flight; noop started from %s to %s%n",
                    cluster, mostProcessing, polledMost.get(), mostInFlight, starts.getFirst(), starts.getLast());

            assertEquals(SLEEP_LIMIT, mostProcessing, "most sleep tasks PROCESSING at once, from the audit");
            assertTrue(polledMost.get() <= SLEEP_LIMIT, "polled " + polledMost.get() + " sleep tasks PROCESSING at once");
            assertTrue(mostInFlight <= SLEEP_LIMIT, "most sleep tasks ENQUEUED or PROCESSING at once: " + mostInFlight);

            assertEquals(30, starts.size(), "each noop task started once");
            // The rate holds for the recorded start times (the claims' now(), also the history's): any window
            // [t, t + 1 s) of microsecond times lies within some (a, a + 1 s], which holds at most the rate.
            for (int i = 0; i < starts.size(); i++) {
                Instant end = starts.get(i).plus(Duration.ofSeconds(1));
                long inWindow = starts.stream().skip(i).takeWhile(at -> at.isBefore(end)).count();
                assertTrue(inWindow <= NOOP_RATE, inWindow + " noop tasks started within 1 s from " + starts.get(i)
                        + ": " + starts);
            }
            // 30 at 5 a second: six windows, the last starting more than 5 s after the first.
            Duration span = Duration.between(starts.getFirst(), starts.getLast());
            assertTrue(span.compareTo(Duration.ofSeconds(5)) > 0, "30 noop tasks started in " + span);
        }
    }

    /** Counts the type's PROCESSING tasks over and over until told to stop; the most seen goes to {@code most}. */
    private static void poll(ReplicaCluster cluster, AtomicBoolean polling, AtomicLong most) {
        try (Connection connection = cluster.database(); PreparedStatement count = connection.prepareStatement(
                "select count(*) from tasks where type = 'sleep' and status = 'PROCESSING'")) {
            while (polling.get()) {
                try (ResultSet row = count.executeQuery()) {
                    row.next();
                    most.accumulateAndGet(row.getLong(1), Math::max);
                }
                Thread.sleep(10);
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The most tasks of {@code type} that were in one of {@code statuses} at once, replayed from the audit: each
     * change into them adds one, each change out of them takes one away, in the order of their times (a task
     * leaving goes before one arriving at the same time). A transition's time is taken before its commit; a task
     * made room for is enqueued only after the commit that made the room, so the replay never overlaps two
     * tasks that did not overlap.
     */
    private static long mostAtOnce(ReplicaCluster cluster, String type, List<String> statuses) throws SQLException {
        String in = statuses.stream().map(status -> "'" + status + "'").collect(Collectors.joining(", ", "(", ")"));
        String sql = "select case when a.to_status in " + in + " then 1 else -1 end as change from transition_audit a "
                + "join tasks t on t.id = a.task where t.type = ? and ((a.to_status in " + in + ") <> (a.from_status in "
                + in + ")) order by a.at, change";
        long now = 0;
        long most = 0;
        try (Connection connection = cluster.database(); PreparedStatement changes = connection.prepareStatement(sql)) {
            changes.setString(1, type);
            try (ResultSet row = changes.executeQuery()) {
                while (row.next()) {
                    now += row.getInt(1);
                    most = Math.max(most, now);
                }
            }
        }
        assertEquals(0, now, "tasks of " + type + " still in " + statuses + " at the end");
        return most;
    }

    /** When each task of the type started (went PROCESSING), from the service's own history, in order. */
    private static List<Instant> startTimes(ReplicaCluster cluster, String type) throws SQLException {
        List<Instant> times = new ArrayList<>();
        try (Connection connection = cluster.database(); PreparedStatement select = connection.prepareStatement(
                "select e.at from task_events e join tasks t on t.id = e.task_id "
                        + "where t.type = ? and e.to_status = 'PROCESSING' order by e.at")) {
            select.setString(1, type);
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    times.add(row.getTimestamp(1).toInstant());
                }
            }
        }
        return times;
    }

    /** Submits {@code count} copies of {@code task} in one batch request; their ids. */
    private static List<UUID> submit(ReplicaCluster cluster, int count, String task) throws Exception {
        String body = IntStream.range(0, count).mapToObj(i -> task).collect(Collectors.joining(",", "{\"tasks\":[", "]}"));
        HttpResponse<String> response = cluster.post(cluster.replicas().getFirst(), "/api/v1/tasks/batch", body);
        assertEquals(200, response.statusCode(), response.body());
        List<UUID> ids = new ArrayList<>();
        Matcher id = UUID_IN_JSON.matcher(response.body());
        while (id.find()) {
            ids.add(UUID.fromString(id.group(1)));
        }
        assertEquals(count, ids.size(), response.body());
        return ids;
    }

    private static long succeeded(ReplicaCluster cluster, List<UUID> ids) throws SQLException {
        try (Connection connection = cluster.database(); PreparedStatement count = connection.prepareStatement(
                "select count(*) from tasks where status = 'SUCCEEDED' and id = any(?)")) {
            count.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}

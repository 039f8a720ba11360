package io.taskfence.replicas;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * What every cluster test checks afterwards (one dispatcher at a time with rising tokens, transitions that are
 * edges of the state machine) and how they drive and read a cluster.
 */
final class ClusterChecks {

    static final Pattern UUID_IN_JSON = Pattern.compile("\"id\":\"([0-9a-f-]{36})\"");
    private static final Duration POLL = Duration.ofMillis(200);

    private ClusterChecks() {
    }

    /**
     * Reads {@code dispatch_log} in commit order: consecutive batches with one token are one run; successive
     * runs must carry strictly rising tokens, so no two runs interleave.
     *
     * @param expectedTasks how many tasks the batches must add up to, or -1 not to check
     * @return the replicas that dispatched
     */
    static Set<String> assertOneDispatcherAtATime(ReplicaCluster cluster, long expectedTasks) throws SQLException {
        Set<String> dispatchers = new HashSet<>();
        Set<Long> finishedRuns = new HashSet<>();
        long runToken = 0;
        long tasks = 0;
        try (Connection db = cluster.database();
                PreparedStatement log = db.prepareStatement("select token, holder, tasks from dispatch_log order by id");
                ResultSet batch = log.executeQuery()) {
            while (batch.next()) {
                long token = batch.getLong("token");
                if (token != runToken) {
                    assertTrue(token > runToken, "a run with token " + token + " wrote after one with " + runToken);
                    assertFalse(finishedRuns.contains(token), "run " + token + " wrote again after another run");
                    finishedRuns.add(runToken);
                    runToken = token;
                }
                dispatchers.add(batch.getString("holder").substring(0, batch.getString("holder").indexOf('/')));
                tasks += batch.getInt("tasks");
            }
        }
        if (expectedTasks >= 0) {
            assertEquals(expectedTasks, tasks, "tasks the dispatch batches moved");
        }
        return dispatchers;
    }

    /** Every status change the trigger recorded is an edge of DESIGN.md, "Task lifecycle"; none leaves SUCCEEDED or DEAD. */
    static void assertTransitionsAreEdges(ReplicaCluster cluster) throws SQLException {
        Map<String, Long> edges = new HashMap<>();
        try (Connection db = cluster.database();
                PreparedStatement audit = db.prepareStatement("select from_status, to_status, to_attempt - from_attempt, "
                        + "count(*) from transition_audit group by 1, 2, 3");
                ResultSet edge = audit.executeQuery()) {
            while (edge.next()) {
                String move = edge.getString(1) + "->" + edge.getString(2) + "(" + edge.getInt(3) + ")";
                edges.put(move, edge.getLong(4));
            }
        }
        Set<String> legal = Set.of("PENDING->ENQUEUED(0)", "ENQUEUED->PROCESSING(1)", "ENQUEUED->PENDING(0)",
                "PROCESSING->SUCCEEDED(0)", "PROCESSING->FAILED(0)", "PROCESSING->DEAD(0)", "PROCESSING->PENDING(-1)",
                "FAILED->ENQUEUED(0)", "PENDING->CANCELLED(0)", "ENQUEUED->CANCELLED(0)", "PROCESSING->CANCELLED(0)",
                "FAILED->CANCELLED(0)", "WAITING->PENDING(0)", "WAITING->CANCELLED(0)");
        for (String move : edges.keySet()) {
            if (!legal.contains(move)) {
                fail("illegal transition " + move + " happened " + edges.get(move) + " times; all: " + edges);
            }
        }
        assertTrue(edges.containsKey("PROCESSING->SUCCEEDED(0)") || edges.containsKey("PROCESSING->DEAD(0)"),
                "the audit saw the tasks finish: " + edges);
    }

    /** Submits {@code count} tasks over REST, spread over {@code replicas}, from several threads. */
    static List<UUID> submit(ReplicaCluster cluster, List<PackagedService> replicas, int count, IntFunction<String> body)
            throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(6);
        try {
            List<Future<UUID>> submitted = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int n = i;
                PackagedService replica = replicas.get(i % replicas.size());
                submitted.add(clients.submit(() -> {
                    HttpResponse<String> response = cluster.post(replica, "/api/v1/tasks", body.apply(n));
                    assertEquals(201, response.statusCode(), response.body());
                    Matcher id = UUID_IN_JSON.matcher(response.body());
                    assertTrue(id.find(), response.body());
                    return UUID.fromString(id.group(1));
                }));
            }
            List<UUID> ids = new ArrayList<>();
            for (Future<UUID> id : submitted) {
                ids.add(id.get());
            }
            return ids;
        } finally {
            clients.shutdownNow();
        }
    }

    static void awaitStatus(ReplicaCluster cluster, List<UUID> ids, String status, Duration atMost)
            throws Exception {
        awaitTrue(ids.size() + " tasks " + status, atMost, () -> countBy(cluster, "status", ids)
                .getOrDefault(status, 0L) == ids.size());
    }

    /** How many of {@code ids} have each value of {@code column}. */
    static <T> Map<T, Long> countBy(ReplicaCluster cluster, String column, List<UUID> ids) throws SQLException {
        Map<T, Long> counts = new HashMap<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(
                "select " + column + ", count(*) from tasks where id = any(?) group by 1")) {
            query.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    @SuppressWarnings("unchecked")
                    T value = (T) row.getObject(1);
                    counts.put(value, row.getLong(2));
                }
            }
        }
        return counts;
    }

    /** The first column of the first row, as a number (0 for null). */
    static long count(ReplicaCluster cluster, String sql, Object... parameters) throws SQLException {
        String value = text(cluster, sql, parameters);
        return value == null ? 0 : Long.parseLong(value);
    }

    /** The first column of the first row, as text. */
    static String text(ReplicaCluster cluster, String sql, Object... parameters) throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                query.setObject(i + 1, parameters[i]);
            }
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }
    }

    /**
     * The database's sessions that are in a transaction or waiting for a lock, one line each (pid, state, what it
     * waits for, who blocks it, its statement): what a test that timed out waiting for the cluster says about why.
     */
    static String sessions(ReplicaCluster cluster) throws SQLException {
        StringBuilder lines = new StringBuilder();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select pid, state, "
                + "wait_event_type, wait_event, pg_blocking_pids(pid)::text, now() - xact_start, "
                + "left(regexp_replace(query, '\\s+', ' ', 'g'), 160) from pg_stat_activity "
                + "where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' "
                + "and (xact_start is not null or wait_event_type = 'Lock') order by xact_start");
                ResultSet row = query.executeQuery()) {
            while (row.next()) {
                lines.append(String.format("%n  pid %s %s (%s/%s) blocked by %s, in transaction for %s: %s",
                        row.getString(1), row.getString(2), row.getString(3), row.getString(4), row.getString(5),
                        row.getString(6), row.getString(7)));
            }
        }
        return lines.isEmpty() ? " none in a transaction" : lines.toString();
    }

    /** A Prometheus sample of the replica's {@code /q/metrics}, 0 if it has not been recorded. */
    static double metric(ReplicaCluster cluster, PackagedService replica, String sample) throws Exception {
        for (String line : cluster.get(replica, "/q/metrics").body().split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        return 0;
    }

    static void awaitTrue(String what, Duration atMost, Callable<Boolean> condition) {
        await(what).atMost(atMost).pollInterval(POLL).until(condition);
    }

    /** Polls {@code probe} until it gives a value; fails, saying {@code what}, after {@code atMost}. */
    static <T> T awaitValue(String what, Duration atMost, Callable<T> probe) {
        return await(what).atMost(atMost).pollInterval(POLL).until(probe, Objects::nonNull);
    }

    /** The ids a query's first column lists. */
    static List<UUID> uuids(ReplicaCluster cluster, String sql, Object... parameters) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                query.setObject(i + 1, parameters[i]);
            }
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    ids.add(row.getObject(1, UUID.class));
                }
            }
        }
        return ids;
    }

    /** Tasks PROCESSING under a claim of {@code replica}'s workers. */
    static long processingOn(ReplicaCluster cluster, PackagedService replica) throws SQLException {
        return count(cluster, "select count(*) from tasks where status = 'PROCESSING' and worker like ?",
                replica.id() + "/%");
    }

    /**
     * Submits {@code groups} groups of {@code tasksPerGroup} {@code sleep} tasks of {@code sleepMs} each in one batch:
     * task j of every group, then task j + 1 of every group.
     *
     * @return each group's ids (by its concurrency key) in submission order
     */
    static Map<String, List<UUID>> submitInterleaved(ReplicaCluster cluster, int groups, int tasksPerGroup, int sleepMs)
            throws Exception {
        List<String> keys = new ArrayList<>();
        StringBuilder body = new StringBuilder("{\"tasks\":[");
        for (int j = 0; j < tasksPerGroup; j++) {
            for (int g = 0; g < groups; g++) {
                keys.add("customer-" + g);
                body.append(keys.size() > 1 ? "," : "").append("{\"type\":\"sleep\",\"payload\":{\"ms\":")
                        .append(sleepMs).append("},\"concurrencyKey\":\"customer-").append(g).append("\"}");
            }
        }
        HttpResponse<String> response = cluster.post(cluster.replicas().getFirst(), "/api/v1/tasks/batch",
                body.append("]}").toString());
        assertEquals(200, response.statusCode(), response.body());
        Map<String, List<UUID>> byGroup = new LinkedHashMap<>();
        Matcher id = UUID_IN_JSON.matcher(response.body());
        for (String key : keys) {
            assertTrue(id.find(), response.body());
            byGroup.computeIfAbsent(key, any -> new ArrayList<>()).add(UUID.fromString(id.group(1)));
        }
        return byGroup;
    }

    /** Kills (-9) a replica once it runs a {@code sleep} task of a group, and waits for its end; the replica. */
    static PackagedService killReplicaRunningAGroupTask(ReplicaCluster cluster) throws Exception {
        String worker = awaitValue("a replica runs a task of a group", Duration.ofSeconds(60),
                () -> processingWorker(cluster));
        PackagedService victim = cluster.replica(worker.substring(0, worker.indexOf('/')));
        victim.signal("KILL");
        victim.process().waitFor();
        return victim;
    }

    /** The worker of a {@code sleep} task of a group PROCESSING now, or null. */
    private static String processingWorker(ReplicaCluster cluster) throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement("select worker from tasks "
                + "where type = 'sleep' and status = 'PROCESSING' and concurrency_key is not null limit 1");
                ResultSet row = query.executeQuery()) {
            return row.next() ? row.getString(1) : null;
        }
    }
}

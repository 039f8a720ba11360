package io.taskfence.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.Test;

import io.taskfence.bench.curve.DrainCurve;
import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Drain: {@code bench.tasks} noop tasks put straight into the table by one INSERT, then run by three packaged
 * replicas with the default settings that matter here (8 workers each, dispatch batches of 500, a queue of at
 * most 1,000, dispatch every second, and at once when the INSERT's notification arrives, as for any insert not
 * made by Taskfence), except that each replica claims 24 tasks ahead of its workers (see settings()). Timed by
 * PostgreSQL's clock from the INSERT's commit to the last task's SUCCEEDED, so any wait for dispatch to start is
 * counted. ReplicaCluster's short
 * leases only matter when something fails. Its audit trigger is left out: it would add an insert to each of a
 * task's three transitions, counted against the service.
 *
 * <p>The replicas drain the same number of tasks again and again, the table emptied before each, until two drains in
 * a row are within 5 % of each other ({@code bench.max-drains} at most), and so does the peer (bench/): on this
 * 2-core machine the three JVMs' C2 compilers take about half the replicas' CPU during the first drains, which
 * measures warm-up rather than the data path (the native binary compiles nothing at run time). The curve is
 * recorded (DrainCurve): the first drain, by replicas just started, is the cold one (what a deploy sees), the 5th
 * the one after four, and the mean of the converged pair the steady figure. The per-task costs are counted over one
 * more drain after those, with the statistics settled before it, so that waiting for them slows no drain of the curve.
 *
 * <p>Then a drain with dependencies (DESIGN.md, "Dependencies", "Follow-ups"): {@code bench.tasks / 2} chains of two
 * and one task that {@code bench.tasks / 2} others wait for, each dependent released by the follow-ups job once its
 * dependency SUCCEEDED; reported against the plain warm drain of the same run. Last, the history job's time to fold
 * a drain's tasks once they are done (HistoryFoldCost).
 */
class DrainBenchIT {

    private static final Duration POLL = Duration.ofMillis(200);
    /** The large warm drain's size, in multiples of {@code bench.tasks}: 100,000 in a full run. */
    private static final int LARGE_DRAIN = 5;
    /**
     * 1 while a task is not done yet: a task waiting or in flight has a row in tasks_due or tasks_in_flight (DESIGN.md,
     * "Storage"). Two probes of small tables, where counting the SUCCEEDED rows would read the whole churned table
     * five times a second, on the same PostgreSQL the drain is timed on. The end is checked on the task table.
     */
    private static final String UNFINISHED = "select count(*) from (select 1 from tasks_due union all "
            + "select 1 from tasks_in_flight union all select 1 from tasks_waiting limit 1) as any_left";

    @Test
    void preloadedNoopTasksDrain() throws Exception {
        int tasks = BenchResults.tasks();
        try (ReplicaCluster cluster = ReplicaCluster.startWithoutAudit(3, settings());
                Connection db = cluster.database()) {
            try {
                DrainCurve curve = new DrainCurve("taskfence", tasks, BenchResults.maxDrains());
                do {
                    empty(db);
                    OffsetDateTime committed = preload(db, tasks);
                    awaitDrained(cluster, db, tasks);
                    checkRanOnce(db, tasks);
                    curve.add(secondsSince(db, committed));
                } while (!curve.done());
                curve.record(BenchResults::record);
                // One more drain, with the statistics of the curve's in before its own are counted.
                empty(db);
                List<Long> pids = cluster.replicas().stream().map(PackagedService::pid).toList();
                DrainCosts.settled(db, pids);
                OffsetDateTime committed = preload(db, tasks);
                DrainCosts before = DrainCosts.now(db, pids); // the pre-load's WAL and CPU are not the drain's
                awaitDrained(cluster, db, tasks);
                DrainCosts end = DrainCosts.now(db, pids);
                DrainCosts settled = DrainCosts.settled(db, pids);
                settled.recordCpuSince(before, tasks, "drain.per_task", "_settled");
                DrainCosts after = settled.withCpuOf(end);
                checkRanOnce(db, tasks);
                System.out.printf("[bench] drain counted for its costs: %d tasks in %.3f s (PostgreSQL's clock); ran on %s%n",
                        tasks, secondsSince(db, committed), ranOn(db));
                after.recordSince(before, tasks, "drain.per_task");
                // A larger warm drain (the peer drains as many): a backlog five times the size.
                empty(db);
                int large = LARGE_DRAIN * tasks;
                OffsetDateTime largeCommitted = preload(db, large);
                awaitDrained(cluster, db, large);
                double largeSeconds = secondsSince(db, largeCommitted);
                System.out.printf("[bench] drain: %d tasks in %.3f s (PostgreSQL's clock)%n", large, largeSeconds);
                BenchResults.record("drain.taskfence.large", large / largeSeconds);
                empty(db);
                int withDependencies = tasks / 2 * 3 + 1;
                OffsetDateTime dependenciesCommitted = preloadWithDependencies(db, tasks / 2, tasks / 2);
                awaitDrained(cluster, db, withDependencies);
                if (Rows.count(db, "select count(*) from tasks where status = 'SUCCEEDED' and attempt = 1")
                        != withDependencies) {
                    fail(withDependencies + " tasks should each have SUCCEEDED once; " + outcomes(db));
                }
                double dependencySeconds = secondsSince(db, dependenciesCommitted);
                System.out.printf("[bench] drain with dependencies: %d tasks in %.3f s (PostgreSQL's clock)%n",
                        withDependencies, dependencySeconds);
                BenchResults.record("drain.dependencies", withDependencies / dependencySeconds);
                // Last, what the history job takes to fold a drain's tasks, once they are done.
                empty(db);
                OffsetDateTime foldCommitted = preload(db, tasks);
                double foldedBefore = HistoryFoldCost.foldSeconds(cluster.replicas());
                awaitDrained(cluster, db, tasks);
                HistoryFoldCost.record(cluster.replicas(), db, tasks, foldCommitted, foldedBefore);
                dumpProfiles(cluster);
            } finally {
                ServiceLogs.printProblems(cluster.replicas());
            }
        }
    }

    private static void checkRanOnce(Connection db, int tasks) throws SQLException {
        long ranOnce = Rows.count(db, "select count(*) from tasks where status = 'SUCCEEDED' and attempt = 1");
        if (ranOnce != tasks || Rows.count(db, "select count(*) from tasks") != tasks) {
            fail(tasks + " tasks should each have SUCCEEDED in one attempt; status/attempt/enqueues: " + outcomes(db));
        }
    }

    private static void awaitDrained(ReplicaCluster cluster, Connection db, int tasks) throws SQLException {
        // Generous: a loaded 2-core machine runs a few hundred of these a second.
        Duration atMost = Duration.ofSeconds(120).plusMillis(20L * tasks);
        try {
            await(tasks + " tasks SUCCEEDED (" + cluster + ")").atMost(atMost).pollInterval(POLL)
                    .failFast("a replica exited", () -> cluster.replicas().stream().anyMatch(r -> !r.process().isAlive()))
                    .until(() -> Rows.count(db, UNFINISHED) == 0);
            if (Rows.count(db, "select count(*) from tasks where status = 'SUCCEEDED'") < tasks) {
                fail("the drain ended with tasks not SUCCEEDED; status/attempt/enqueues: " + outcomes(db));
            }
        } catch (ConditionTimeoutException | TerminalFailureException stuck) {
            fail(stuck.getMessage() + "; status/attempt/enqueues: " + outcomes(db), stuck);
        }
    }

    /**
     * With {@code -Dbench.jfr=DIR} (scripts/dev.sh: {@code BENCH_JFR=DIR}), each replica records a JDK Flight
     * Recorder profile, dumped into DIR once the drain is over, for {@code jfr view hot-methods DIR/replica-0.jfr}.
     */
    private static Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        // 8 running + 24 claimed ahead: at most 32 tasks in hand per replica, the bound db-scheduler's
        // high-throughput setting (upper limit 4.0 × 8 threads) gives each of its instances in the peer run.
        settings.put("TASKFENCE_WORKER_CLAIM_AHEAD", "24");
        // The replicas inherit JAVA_TOOL_OPTIONS (scripts/dev.sh: BENCH_JVM_OPTIONS); a profile adds to it.
        profileDir().ifPresent(dir -> settings.put("JAVA_TOOL_OPTIONS",
                (System.getenv().getOrDefault("JAVA_TOOL_OPTIONS", "") + " -XX:StartFlightRecording=settings=profile").strip()));
        return settings;
    }

    private static Optional<Path> profileDir() {
        String dir = System.getProperty("bench.jfr", "");
        return dir.isBlank() ? Optional.empty() : Optional.of(Path.of(dir).toAbsolutePath());
    }

    /** The replicas are killed at the end (no exit dump), so their recordings are dumped while they run. */
    private static void dumpProfiles(ReplicaCluster cluster) throws Exception {
        if (profileDir().isEmpty()) {
            return;
        }
        Files.createDirectories(profileDir().get());
        for (PackagedService replica : cluster.replicas()) {
            Path file = profileDir().get().resolve(replica.id() + ".jfr");
            Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(replica.pid()), "JFR.dump", "filename=" + file).inheritIO().start();
            if (dump.waitFor() != 0) {
                throw new IllegalStateException("jcmd could not dump the profile of " + replica.id());
            }
        }
    }

    private static void empty(Connection db) throws SQLException {
        try (Statement empty = db.createStatement()) {
            empty.execute("truncate tasks, task_event_log, tasks_due, tasks_in_flight, tasks_off_path, dispatch_log, "
                    + "tasks_waiting, task_dependencies, task_follow_ups");
        }
    }

    /** Inserts the tasks in one autocommitted statement; PostgreSQL's time right after its commit. */
    private static OffsetDateTime preload(Connection db, int tasks) throws SQLException {
        try (Statement insert = db.createStatement()) {
            insert.executeUpdate("insert into tasks (id, type, payload, status, attempt, max_attempts, priority, run_at, "
                    + "created_at, updated_at) select gen_random_uuid(), 'noop', '{}', 'PENDING', 0, 5, 0, now(), now(), "
                    + "now() from generate_series(1, " + tasks + ")");
        }
        return committedThenAnalyzed(db);
    }

    /**
     * {@code chains} chains of two (a PENDING task, and one WAITING for it) and one PENDING task that {@code fanIn}
     * WAITING tasks wait for, with their edges, in one autocommitted statement, as SQL by hand would make them;
     * PostgreSQL's time right after its commit.
     */
    private static OffsetDateTime preloadWithDependencies(Connection db, int chains, int fanIn) throws SQLException {
        String task = "insert into tasks (id, type, payload, status, attempt, max_attempts, priority, run_at, "
                + "created_at, updated_at, has_dependents, dependencies_left, on_dependency_failure) "
                + "select gen_random_uuid(), 'noop', '{}', %s, 0, 5, 0, now(), now(), now(), %s, %s, %s "
                + "from generate_series(1, %d) returning id";
        try (Statement insert = db.createStatement()) {
            insert.executeUpdate("with heads as (" + task.formatted("'PENDING'", "true", "null", "null", chains + 1)
                    + "), head as (select id, row_number() over () as n from heads), "
                    + "dependents as (" + task.formatted("'WAITING'", "null", "1", "'cancel'", chains + fanIn)
                    + "), dependent as (select id, row_number() over () as n from dependents) "
                    + "insert into task_dependencies (depends_on, task_id, resolved) select head.id, dependent.id, false "
                    + "from dependent join head on head.n = least(dependent.n, " + (chains + 1) + ")");
        }
        return committedThenAnalyzed(db);
    }

    /** PostgreSQL's time right after a pre-load's commit; then the planner's statistics of the table. */
    private static OffsetDateTime committedThenAnalyzed(Connection db) throws SQLException {
        // Not "returning clock_timestamp()": the rows are invisible to dispatch until the commit, which comes later.
        OffsetDateTime committed;
        try (Statement clock = db.createStatement(); ResultSet now = clock.executeQuery("select clock_timestamp()")) {
            now.next();
            committed = now.getObject(1, OffsetDateTime.class);
        }
        // Statistics for the planner, as the db-scheduler run gets (bench/); timed against Taskfence.
        try (Statement analyze = db.createStatement()) {
            analyze.execute("analyze tasks");
        }
        return committed;
    }

    /** From {@code start} to the last task's SUCCEEDED ({@code updated_at}, PostgreSQL's {@code now()} of that write). */
    private static double secondsSince(Connection db, OffsetDateTime start) throws SQLException {
        try (PreparedStatement query = db.prepareStatement(
                "select extract(epoch from max(updated_at) - ?) from tasks where status = 'SUCCEEDED'")) {
            query.setObject(1, start);
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getDouble(1);
            }
        }
    }

    /** How many tasks ended in each (status, attempt, enqueues): what to look at when a task ran twice. */
    private static Map<String, Long> outcomes(Connection db) throws SQLException {
        return grouped(db, "select status || '/' || attempt || '/' || enqueues, count(*) from tasks group by 1 order by 1");
    }

    /** How many tasks each replica ran (the first part of the claim id). */
    private static Map<String, Long> ranOn(Connection db) throws SQLException {
        return grouped(db, "select split_part(worker, '/', 1), count(*) from tasks group by 1 order by 1");
    }

    private static Map<String, Long> grouped(Connection db, String sql) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Statement query = db.createStatement(); ResultSet row = query.executeQuery(sql)) {
            while (row.next()) {
                counts.put(row.getString(1), row.getLong(2));
            }
        }
        return counts;
    }
}

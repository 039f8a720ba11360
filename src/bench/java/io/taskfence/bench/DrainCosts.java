package io.taskfence.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a drain cost the machine, read from outside the service: the CPU time of PostgreSQL's processes and of the
 * replicas (utime + stime from {@code /proc}, reaped backends' through the postmaster's cutime + cstime), the share
 * of the replicas' time their JIT compiler threads took (the native binary has none), the WAL
 * written (bytes from the insert position, records from {@code pg_stat_wal}), and how many of the task table's row
 * updates were HOT ({@code pg_stat_user_tables}). The WAL and HOT counts are server-wide and schema-wide: the
 * drain is the only writer while it runs.
 */
record DrainCosts(long postgresTicks, long replicaTicks, long replicaJitTicks, long walBytes, long walRecords,
        long updates, long hotUpdates) {

    /** Clock ticks a second of /proc's CPU times; Linux reports in USER_HZ, 100 on every common build. */
    private static final double TICKS_PER_SECOND = 100;
    private static final Duration STATS_QUIET = Duration.ofSeconds(11);
    private static final Duration STATS_GIVE_UP = Duration.ofSeconds(40);

    /** Where the counters stand now; {@code replicaPids} are the replicas' processes. */
    static DrainCosts now(Connection db, List<Long> replicaPids) throws SQLException, IOException {
        long walBytes;
        long walRecords;
        long updates;
        long hotUpdates;
        try (Statement flush = db.createStatement()) {
            // This session's own statistics (the pre-load's WAL records) go out when this transaction ends.
            flush.execute("select pg_stat_force_next_flush()");
        }
        try (Statement query = db.createStatement();
                ResultSet row = query.executeQuery("select pg_current_wal_insert_lsn() - '0/0'::pg_lsn, "
                        + "(select wal_records from pg_stat_wal), "
                        + "(select n_tup_upd from pg_stat_user_tables where relname = 'tasks' and schemaname = current_schema()), "
                        + "(select n_tup_hot_upd from pg_stat_user_tables where relname = 'tasks' and schemaname = current_schema())")) {
            row.next();
            walBytes = row.getLong(1);
            walRecords = row.getLong(2);
            updates = row.getLong(3);
            hotUpdates = row.getLong(4);
        }
        long postgres = 0;
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes.filter(path -> path.getFileName().toString().matches("\\d+")).toList()) {
                if (read(process.resolve("comm")).strip().equals("postgres")) {
                    postgres += ticks(process, true);
                }
            }
        }
        long replicas = 0;
        long jit = 0;
        for (long pid : replicaPids) {
            Path process = Path.of("/proc", Long.toString(pid));
            replicas += ticks(process, false);
            jit += compilerThreadTicks(process);
        }
        return new DrainCosts(postgres, replicas, jit, walBytes, walRecords, updates, hotUpdates);
    }

    /**
     * The counters once the servers' statistics have caught up: a backend sends its own at most once a second while
     * busy, and within ten seconds ({@code PGSTAT_IDLE_INTERVAL}) once idle, so they are read until they have not
     * changed for longer than that.
     */
    static DrainCosts settled(Connection db, List<Long> replicaPids) throws Exception {
        DrainCosts now = now(db, replicaPids);
        if (!BenchResults.settleStatistics()) {
            return now;
        }
        long stableSince = System.nanoTime();
        long giveUpAt = stableSince + STATS_GIVE_UP.toNanos();
        while (System.nanoTime() - stableSince < STATS_QUIET.toNanos() && System.nanoTime() - giveUpAt < 0) {
            Thread.sleep(1_000);
            DrainCosts later = now(db, replicaPids);
            if (later.updates != now.updates || later.walRecords != now.walRecords) {
                stableSince = System.nanoTime();
            }
            now = later;
        }
        return now;
    }

    /**
     * These counters with the CPU times of {@code end}: the CPU is counted until the drain was seen to end, not over
     * the idle wait for the statistics, in which three idle replicas' timers would be counted against the drain.
     */
    DrainCosts withCpuOf(DrainCosts end) {
        return new DrainCosts(end.postgresTicks, end.replicaTicks, end.replicaJitTicks, walBytes, walRecords, updates,
                hotUpdates);
    }

    /**
     * Records the CPU per task of a drain of {@code tasks} from {@code before} to these counters, under {@code prefix},
     * with the names of {@link #recordSince} and {@code suffix}: with {@link #settled} counters, what the machine
     * did until the statistics caught up (writing the drained pages out) is counted too.
     */
    void recordCpuSince(DrainCosts before, int tasks, String prefix, String suffix) {
        BenchResults.record(prefix + ".postgres_cpu_us" + suffix, micros(postgresTicks - before.postgresTicks) / tasks);
        BenchResults.record(prefix + ".replicas_cpu_us" + suffix, micros(replicaTicks - before.replicaTicks) / tasks);
        BenchResults.record(prefix + ".replicas_jit_cpu_us" + suffix, micros(replicaJitTicks - before.replicaJitTicks) / tasks);
    }

    /** Records, per task of a drain of {@code tasks} that ran from {@code before} to this, under {@code prefix}. */
    void recordSince(DrainCosts before, int tasks, String prefix) {
        recordCpuSince(before, tasks, prefix, "");
        BenchResults.record(prefix + ".wal_bytes", (double) (walBytes - before.walBytes) / tasks);
        BenchResults.record(prefix + ".wal_records", (double) (walRecords - before.walRecords) / tasks);
        long updated = updates - before.updates;
        BenchResults.record(prefix + ".row_updates", (double) updated / tasks);
        BenchResults.record(prefix + ".hot_ratio", updated == 0 ? Double.NaN : (double) (hotUpdates - before.hotUpdates) / updated);
    }

    private static double micros(long ticks) {
        return ticks / TICKS_PER_SECOND * 1e6;
    }

    /** utime + stime of a process (and, with {@code reaped}, cutime + cstime: its waited-for children's); 0 if it is gone. */
    private static long ticks(Path process, boolean reaped) {
        String stat = read(process.resolve("stat"));
        if (stat.isEmpty()) {
            return 0;
        }
        // The command name, in parentheses, may hold spaces: the fields are counted from after it (field 3 on).
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long own = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return reaped ? own + Long.parseLong(fields[13]) + Long.parseLong(fields[14]) : own;
    }

    /**
     * utime + stime of the JVM's compiler threads ({@code C1 CompilerThre…}, {@code C2 CompilerThre…}) alive now: a
     * compiler thread the JVM stops when idle takes its time with it, so this is a lower bound.
     */
    private static long compilerThreadTicks(Path process) throws IOException {
        long ticks = 0;
        try (Stream<Path> threads = Files.list(process.resolve("task"))) {
            for (Path thread : threads.toList()) {
                String name = read(thread.resolve("comm")).strip();
                if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                    ticks += ticks(thread, false);
                }
            }
        } catch (NoSuchFileException gone) {
            return 0;
        }
        return ticks;
    }

    /** A /proc file's text, or "" if its process has gone meanwhile. */
    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException gone) {
            return "";
        }
    }
}

package io.taskfence.bench.peers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The drain a Java team would otherwise build on db-scheduler: N one-time executions of a task that does
 * nothing, all due, worked off by 3 scheduler instances of 8 threads each, the shape of Taskfence's drain
 * (3 replicas × 8 workers). The instances share this JVM but nothing else: each has its own pool, threads and
 * name, and they meet only in the table, as separate processes would.
 */
final class DbSchedulerDrain {

    static final String TASK = "noop";
    static final int INSTANCES = 3;
    static final int THREADS = 8;

    /**
     * Lock-and-fetch, which db-scheduler's README recommends above ~1,000 executions/s: one
     * {@code update ... where ... for update skip locked returning} picks a batch, so each execution costs that
     * share of a statement plus its delete. The fractions are the README's "for high throughput (keep threads
     * busy)" setting: fetch again once no more than 1.0 × threads executions are left queued or running, and
     * fetch up to 4.0 × threads minus those, so threads never wait for the next batch.
     */
    static final double LOWER_LIMIT_FRACTION_OF_THREADS = 1.0;
    static final double UPPER_LIMIT_FRACTION_OF_THREADS = 4.0;

    /**
     * With lock-and-fetch a full batch triggers the next fetch as soon as the queue runs down to the lower limit,
     * so while the table has due executions the polling interval is not what paces the drain. It only matters
     * when a fetch comes back short, i.e. at the tail; 100 ms (the default is 10 s) keeps that wait from
     * counting as drain time, at the cost of one cheap query per instance every 100 ms.
     */
    static final Duration POLLING_INTERVAL = Duration.ofMillis(100);

    /** How often the table is checked for executions left; a short `exists` query, kept off the schedulers' pools. */
    private static final Duration CHECK_EVERY = Duration.ofMillis(25);
    /** A drain that stops moving for this long has broken, whatever its size. */
    private static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    /** db-scheduler 16.12's PostgreSQL schema, its postgresql_tables.sql (the jar does not ship it). */
    private static final String SCHEMA = """
            create table scheduled_tasks (
              task_name text not null,
              task_instance text not null,
              task_data bytea,
              execution_time timestamp with time zone not null,
              picked boolean not null,
              picked_by text,
              last_success timestamp with time zone,
              last_failure timestamp with time zone,
              consecutive_failures int,
              last_heartbeat timestamp with time zone,
              version bigint not null,
              priority smallint,
              primary key (task_name, task_instance)
            );
            create index execution_time_idx on scheduled_tasks (execution_time);
            create index last_heartbeat_idx on scheduled_tasks (last_heartbeat);
            create index priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);
            """;

    /**
     * The rows {@code SchedulerClient.schedule} would insert (no data, not picked, version 1), all due now, in one
     * statement, as Taskfence's drain pre-loads its own table.
     */
    private static final String PRE_LOAD = """
            insert into scheduled_tasks (task_name, task_instance, task_data, execution_time, picked, version)
            select ?, 'noop-' || i, null, now(), false, 1 from generate_series(1, ?) as i
            """;

    private static final String ANY_LEFT = "select exists (select 1 from scheduled_tasks where task_name = ?)";
    private static final String COUNT_LEFT = "select count(*) from scheduled_tasks where task_name = ?";

    /**
     * @param tasks      executions pre-loaded
     * @param handled    times the handler ran; more than {@code tasks} means some execution ran twice
     * @param drainTime  from the schedulers' start until the table held no execution of the task
     */
    record Result(int tasks, long handled, Duration drainTime) {

        double tasksPerSecond() {
            return tasks / (drainTime.toNanos() / 1e9);
        }
    }

    private final BenchDatabase database;

    DbSchedulerDrain(BenchDatabase database) {
        this.database = database;
    }

    Result run(int tasks) throws SQLException, InterruptedException {
        try (Connection watcher = database.connect()) {
            createTable(watcher);
            preLoad(watcher, tasks);

            AtomicLong handled = new AtomicLong();
            OneTimeTask<Void> noop = Tasks.oneTime(TASK).execute((instance, context) -> handled.incrementAndGet());

            List<HikariDataSource> pools = new ArrayList<>();
            List<Scheduler> schedulers = new ArrayList<>();
            Duration drainTime;
            try {
                for (int i = 1; i <= INSTANCES; i++) {
                    HikariDataSource pool = pool(i);
                    pools.add(pool);
                    schedulers.add(scheduler(i, pool, noop));
                }
                long start = System.nanoTime();
                schedulers.forEach(Scheduler::start);
                awaitEmpty(watcher, tasks, handled, start);
                drainTime = Duration.ofNanos(System.nanoTime() - start);
            } finally {
                stop(schedulers);
                pools.forEach(HikariDataSource::close);
            }
            // Read once the schedulers have stopped: a duplicate run would have had the time to count.
            long handledInAll = handled.get();
            if (handledInAll < tasks) {
                throw new IllegalStateException("db-scheduler emptied the table but ran the handler only "
                        + handledInAll + " times for " + tasks + " executions");
            }
            return new Result(tasks, handledInAll, drainTime);
        }
    }

    private static void createTable(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists scheduled_tasks"); // the previous drain's
            statement.execute(SCHEMA);
        }
    }

    private static void preLoad(Connection connection, int tasks) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(PRE_LOAD)) {
            insert.setString(1, TASK);
            insert.setInt(2, tasks);
            int inserted = insert.executeUpdate();
            if (inserted != tasks) {
                throw new IllegalStateException("pre-loaded " + inserted + " executions, not " + tasks);
            }
        }
        // Statistics for the rows just loaded, as autovacuum would gather on a table in use: the fetch query is
        // planned on them, and a drain should not start on a guess.
        try (Statement analyze = connection.createStatement()) {
            analyze.execute("analyze scheduled_tasks");
        }
    }

    /** Threads + 2 connections: one for each worker thread completing an execution, one for the poller, one for
     *  housekeeping (heartbeats, dead executions), so no statement of the drain waits for a connection. */
    private HikariDataSource pool(int instance) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("db-scheduler-" + instance);
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.user());
        config.setMaximumPoolSize(THREADS + 2);
        HikariDataSource pool = new HikariDataSource(config);
        try {
            fill(pool);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        return pool;
    }

    /** Opens every connection before the clock starts, so the drain time holds no connection set-up. */
    private static void fill(HikariDataSource pool) {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                held.add(pool.getConnection());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the connections of " + pool.getPoolName(), e);
        } finally {
            for (Connection connection : held) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // back to the pool or broken: either way not ours to keep
                }
            }
        }
    }

    private static Scheduler scheduler(int instance, HikariDataSource pool, OneTimeTask<Void> noop) {
        return Scheduler.create(pool, noop)
                .schedulerName(new SchedulerName.Fixed("db-scheduler-" + instance))
                .threads(THREADS)
                .pollUsingLockAndFetch(LOWER_LIMIT_FRACTION_OF_THREADS, UPPER_LIMIT_FRACTION_OF_THREADS)
                .pollingInterval(POLLING_INTERVAL)
                // A failed run must not hang for the default 30 minutes waiting on executions it picked.
                .shutdownMaxWait(Duration.ofSeconds(10))
                // no registerShutdownHook(): this class stops its schedulers itself, before the database goes
                .build();
    }

    private static void awaitEmpty(Connection watcher, int tasks, AtomicLong handled, long start)
            throws SQLException, InterruptedException {
        long lastHandled = -1;
        long lastProgress = System.nanoTime();
        try (PreparedStatement anyLeft = watcher.prepareStatement(ANY_LEFT)) {
            anyLeft.setString(1, TASK);
            while (true) {
                try (ResultSet row = anyLeft.executeQuery()) {
                    row.next();
                    if (!row.getBoolean(1)) {
                        return;
                    }
                }
                long now = System.nanoTime();
                long handledNow = handled.get();
                if (handledNow != lastHandled) {
                    lastHandled = handledNow;
                    lastProgress = now;
                } else if (now - lastProgress > STALL_LIMIT.toNanos()) {
                    throw new IllegalStateException(String.format(
                            "db-scheduler drain stalled: no execution for %d s, %d of %d executions left in the"
                                    + " table, the handler ran %d times in %.1f s",
                            STALL_LIMIT.toSeconds(), countLeft(watcher), tasks, handledNow, (now - start) / 1e9));
                }
                Thread.sleep(CHECK_EVERY);
            }
        }
    }

    private static long countLeft(Connection watcher) throws SQLException {
        try (PreparedStatement count = watcher.prepareStatement(COUNT_LEFT)) {
            count.setString(1, TASK);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** Stops the instances side by side: each waits up to a second for its poller, no need to add them up. */
    private static void stop(List<Scheduler> schedulers) throws InterruptedException {
        List<Thread> stopping = new ArrayList<>();
        for (Scheduler scheduler : schedulers) {
            stopping.add(Thread.ofPlatform().name("db-scheduler-stop").start(scheduler::stop));
        }
        for (Thread thread : stopping) {
            thread.join();
        }
    }
}

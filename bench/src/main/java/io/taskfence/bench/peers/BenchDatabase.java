package io.taskfence.bench.peers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database the drain peer works in, {@value #NAME}, created for the run and dropped after it, so that
 * db-scheduler's table never meets the service's tables in {@code test}. It is created and dropped from the
 * maintenance database {@code postgres}, as a database cannot drop itself.
 */
final class BenchDatabase implements AutoCloseable {

    static final String NAME = "taskfence_bench_peers";

    private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
    private static final String USER = "postgres";
    /** Names our sessions in pg_stat_activity, for whoever wonders what holds connections on the shared server. */
    private static final String APPLICATION = "?ApplicationName=taskfence-bench-peers";

    private BenchDatabase() {
    }

    /**
     * Creates the database. One left by a run that was killed before it could drop it is dropped first; one that
     * has sessions belongs to a run still going, and is left alone.
     */
    static BenchDatabase create() throws SQLException {
        try (Connection admin = admin(); Statement statement = admin.createStatement()) {
            int sessions = sessionsIn(admin);
            if (sessions > 0) {
                throw new IllegalStateException("database " + NAME + " exists with " + sessions
                        + " session(s): is another peers run going? If not, drop it: psql -h 127.0.0.1 -U postgres"
                        + " -d postgres -c 'drop database " + NAME + " with (force)'");
            }
            if (exists(admin)) {
                System.out.println("[peers] dropping " + NAME + ", left by an earlier run that did not finish");
                statement.execute("drop database " + NAME);
            }
            statement.execute("create database " + NAME);
        }
        return new BenchDatabase();
    }

    String jdbcUrl() {
        return SERVER + NAME + APPLICATION;
    }

    String user() {
        return USER;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, "");
    }

    /** Drops the database, ending any session of ours still in it (a pool a failure left open). */
    @Override
    public void close() throws SQLException {
        try (Connection admin = admin(); Statement statement = admin.createStatement()) {
            statement.execute("drop database if exists " + NAME + " with (force)");
        }
    }

    private static Connection admin() throws SQLException {
        return DriverManager.getConnection(SERVER + "postgres" + APPLICATION, USER, "");
    }

    private static boolean exists(Connection admin) throws SQLException {
        try (PreparedStatement query = admin.prepareStatement("select 1 from pg_database where datname = ?")) {
            query.setString(1, NAME);
            try (ResultSet row = query.executeQuery()) {
                return row.next();
            }
        }
    }

    private static int sessionsIn(Connection admin) throws SQLException {
        try (PreparedStatement query = admin.prepareStatement(
                "select count(*) from pg_stat_activity where datname = ?")) {
            query.setString(1, NAME);
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}

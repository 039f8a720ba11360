package io.taskfence.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Gives each test run a PostgreSQL schema of its own in the shared local database (Flyway migrates it
 * when the application starts) and drops it when the run ends.
 */
public final class PostgresSchema implements QuarkusTestResourceLifecycleManager {

    /** The database the tests use; the schema goes into it. */
    public static final String DATABASE_URL = System.getenv().getOrDefault("TASKFENCE_TEST_DATABASE_URL",
            "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String USER = System.getenv().getOrDefault("TASKFENCE_TEST_DATABASE_USER", "postgres");

    private final String schema = "taskfence_test_" + UUID.randomUUID().toString().substring(0, 8);

    @Override
    public Map<String, String> start() {
        execute("create schema " + schema);
        return Map.of(
                "quarkus.datasource.jdbc.url", DATABASE_URL + "?currentSchema=" + schema,
                "quarkus.datasource.username", USER,
                "quarkus.flyway.schemas", schema);
    }

    @Override
    public void stop() {
        execute("drop schema if exists " + schema + " cascade");
    }

    private void execute(String sql) {
        try (Connection connection = DriverManager.getConnection(DATABASE_URL, USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + DATABASE_URL + ": " + e.getMessage(), e);
        }
    }
}

package io.taskfence.store;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.taskfence.testing.PostgresSchema;

/**
 * A migration that loses a deadlock to another session's statement is retried, not taken for a broken migration. A
 * replica whose PostgreSQL came back late migrates while other replicas' (and, before, its own jobs') statements use
 * the same tables; CI once saw V15 lose such a deadlock and the replica stay unready for good.
 */
class SchemaMigrationsTest {

    private final String schema = "migrations_" + UUID.randomUUID().toString().substring(0, 8);
    private final String url = PostgresSchema.DATABASE_URL + "?currentSchema=" + schema;
    private SchemaMigrations migrations;

    @AfterEach
    void dropSchema() throws SQLException {
        if (migrations != null) {
            migrations.stop();
        }
        try (Connection connection = DriverManager.getConnection(PostgresSchema.DATABASE_URL, PostgresSchema.USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("drop schema if exists " + schema + " cascade");
        }
    }

    @Test
    void aMigrationThatLosesADeadlockIsRetriedUntilApplied(@TempDir Path upToV14) throws Exception {
        // The schema as it was before V15, which locks tasks and then tasks_due.
        for (int version = 1; version <= 14; version++) {
            String prefix = "V" + version + "__";
            try (var files = Files.list(Path.of("src/main/resources/db/migration"))) {
                Path file = files.filter(f -> f.getFileName().toString().startsWith(prefix)).findFirst().orElseThrow();
                Files.copy(file, upToV14.resolve(file.getFileName()));
            }
        }
        Flyway.configure().dataSource(url, PostgresSchema.USER, "").schemas(schema)
                .locations("filesystem:" + upToV14).load().migrate();
        // The migrations look for the deadlock 3 s into their wait, not 1 s: time enough for this test's session to
        // join it on a busy machine (which never looks itself, below).
        migrations = new SchemaMigrations(Flyway.configure().dataSource(url + "&options=-c%20deadlock_timeout%3D3s",
                PostgresSchema.USER, "").schemas(schema).locations("classpath:db/migration").load());

        try (Connection other = DriverManager.getConnection(url, PostgresSchema.USER, "");
                Statement statement = other.createStatement()) {
            other.setAutoCommit(false);
            // PostgreSQL looks for a deadlock once per wait, deadlock_timeout after it began: this session looks long
            // after V15 does (3 s), so V15 is the one that finds it and loses; and if this session came too late for
            // V15's look, its own finds it and the test fails instead of waiting for good.
            statement.execute("set deadlock_timeout = '30s'");
            statement.execute("select count(*) from tasks_due"); // holds tasks_due (access share) until it ends
            Thread start = Thread.ofPlatform().start(() -> migrations.migrateAtStart(null));
            await("V15 holds tasks and waits for tasks_due").atMost(Duration.ofSeconds(30))
                    .until(() -> waitsForTasksDue(other));
            // Now this session waits for tasks, which V15 holds: a deadlock, found by the session that waited first.
            statement.execute("select count(*) from tasks");
            start.join(30_000);
            SchemaMigrations.State lost = migrations.state();
            assertFalse(lost.applied(), lost.toString());
            assertTrue(lost.retrying(), "a lost deadlock passes by itself: " + lost);
            assertTrue(lost.detail().contains("deadlock"), lost.toString());
            other.commit();
        }

        await("the retry applies every migration").atMost(Duration.ofSeconds(30))
                .until(() -> migrations.state().applied());
        try (Connection connection = DriverManager.getConnection(url, PostgresSchema.USER, "");
                Statement statement = connection.createStatement();
                ResultSet columns = statement.executeQuery("select 1 from information_schema.columns where "
                        + "table_schema = '" + schema + "' and table_name = 'tasks' and column_name = 'concurrency_key'")) {
            assertTrue(columns.next(), "V15 was applied");
        }
    }

    private static boolean waitsForTasksDue(Connection other) throws SQLException {
        try (Connection probe = DriverManager.getConnection(PostgresSchema.DATABASE_URL, PostgresSchema.USER, "");
                Statement statement = probe.createStatement();
                ResultSet waiting = statement.executeQuery("select count(*) from pg_locks l join pg_class c on "
                        + "c.oid = l.relation join pg_namespace n on n.oid = c.relnamespace where not l.granted and "
                        + "c.relname = 'tasks_due' and n.nspname = '" + other.getSchema() + "'")) {
            waiting.next();
            return waiting.getInt(1) > 0;
        }
    }
}

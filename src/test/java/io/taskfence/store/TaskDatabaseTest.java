package io.taskfence.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.TcpForwarder;

/**
 * A transaction whose connection breaks fails with what broke it. The rollback and the reset of auto-commit
 * that follow fail as well on the dead connection; before, the reset's "This connection has been closed" was
 * the failure every 503 of a PostgreSQL outage logged, hiding whether a statement or the commit had failed.
 */
class TaskDatabaseTest {

    @Test
    void aConnectionThatBreaksInATransactionFailsWithWhatBrokeItNotWithTheClosedConnectionAfterwards() {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setUrl(PostgresSchema.DATABASE_URL);
        source.setUser(PostgresSchema.USER);
        TaskDatabase database = new TaskDatabase(source, Duration.ofSeconds(2));

        TaskStoreException failure = assertThrows(TaskStoreException.class, () -> database.inTransaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                // PostgreSQL ends this session from the inside, as an administrator or a restart would.
                statement.execute("select pg_terminate_backend(pg_backend_pid())");
            }
            return null;
        }));

        SQLException cause = assertInstanceOf(SQLException.class, failure.getCause());
        assertEquals("57P01", cause.getSQLState(), "the session's end (admin shutdown), not what came after: " + failure);
        assertTrue(cause.getSuppressed().length > 0, "the rollback's failure on the dead connection is kept with it");
        assertFalse(failure.outcomeUnknown(), "a statement failed before the commit: nothing was committed");
    }

    @Test
    void aCommitWhoseConnectionBreaksMayHaveCommittedAndSaysSo() throws Exception {
        URI database = URI.create(PostgresSchema.DATABASE_URL.substring("jdbc:".length()));
        try (TcpForwarder path = TcpForwarder.open(0, database.getPort())) {
            PGSimpleDataSource source = new PGSimpleDataSource();
            source.setUrl("jdbc:postgresql://127.0.0.1:" + path.listenPort() + database.getPath());
            source.setUser(PostgresSchema.USER);
            TaskDatabase overThePath = new TaskDatabase(source, Duration.ofSeconds(2));

            TaskStoreException failure = assertThrows(TaskStoreException.class, () -> overThePath.inTransaction(
                    connection -> {
                        try (Statement statement = connection.createStatement()) {
                            statement.execute("select 1");
                        }
                        // The network fails between the work and its commit: the commit's answer (if it was sent at
                        // all) never comes back, as when a commit reaches PostgreSQL and only its answer is lost.
                        path.close();
                        return null;
                    }));

            SQLException cause = assertInstanceOf(SQLException.class, failure.getCause());
            assertTrue(cause.getSQLState().startsWith("08"), "a connection exception: " + cause.getSQLState());
            assertTrue(failure.outcomeUnknown(), "the commit may have been made: " + failure);
        }
    }
}

package io.taskfence.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Supplier;

import javax.sql.DataSource;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import io.taskfence.TaskfenceConfig;

/**
 * The units of work on the task database: a connection, a transaction, and a fenced transaction (DESIGN.md,
 * "Fencing (PostgreSQL)": the fence check first, then the work, one commit). Every SQL failure comes out as a
 * {@link TaskStoreException}, which the API answers 503 (or 400 for a refused value) and the jobs skip.
 */
@Singleton
public final class TaskDatabase {

    /** Statements on one connection; may throw what JDBC throws. */
    @FunctionalInterface
    public interface Work<T> {
        T in(Connection connection) throws SQLException;
    }

    private final DataSource db;
    /** {@code set local lock_timeout} of every fenced transaction ({@code taskfence.job-lock-timeout}). */
    private final String jobLockTimeout;

    @Inject
    TaskDatabase(DataSource db, TaskfenceConfig config) {
        this(db, config.jobLockTimeout());
    }

    TaskDatabase(DataSource db, Duration jobLockTimeout) {
        this.db = db;
        this.jobLockTimeout = "set local lock_timeout = " + Math.max(1, jobLockTimeout.toMillis());
    }

    public <T> T inConnection(Work<T> work) {
        try (Connection connection = db.getConnection()) {
            return work.in(connection);
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    /**
     * Runs {@code work} in one transaction, committed when it returns, rolled back if it throws. A commit whose
     * connection broke throws a {@link TaskStoreException} whose outcome is unknown.
     */
    public <T> T inTransaction(Work<T> work) {
        return inConnection(connection -> {
            connection.setAutoCommit(false);
            T result;
            try {
                result = work.in(connection);
                commit(connection);
            } catch (SQLException | RuntimeException e) {
                // On a connection that broke, the rollback and the reset fail too ("This connection has been
                // closed"): the first failure says what happened (and whether a commit was under way), so it stays
                // the one thrown, with theirs attached.
                try {
                    connection.rollback();
                    connection.setAutoCommit(true);
                } catch (SQLException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            connection.setAutoCommit(true);
            return result;
        });
    }

    private static void commit(Connection connection) {
        try {
            connection.commit();
        } catch (SQLException e) {
            throw TaskStoreException.ofCommit(e);
        }
    }

    /**
     * Runs {@code unit}, a unit of work of this class, again when PostgreSQL rolled it back to break a deadlock,
     * three tries in all. A submission locks the tasks its new ones wait for (those not WAITING first, then the
     * WAITING ones), and a bulk step the tasks it moves in the same two sets; a task that leaves WAITING between the
     * two statements can make two of them meet in opposite orders. Nothing of the one rolled back was written, so
     * trying it again does it once; {@code unit} must start afresh each time (no state kept from a failed try).
     */
    public <T> T retryingDeadlocks(Supplier<T> unit) {
        for (int attempt = 1;; attempt++) {
            try {
                return unit.get();
            } catch (TaskStoreException e) {
                if (!e.deadlock() || attempt == 3) {
                    throw e;
                }
            }
        }
    }

    /**
     * Runs {@code work} in one transaction after the fence check; rolls back if either refuses or fails. The work's
     * statements wait at most {@code taskfence.job-lock-timeout} for a row lock: a client's request holding a row
     * must not hold a job (and every tenant it serves) for as long as it likes. A wait that long fails the
     * transaction with a {@link TaskStoreException} whose {@link TaskStoreException#lockTimedOut()} says so; the
     * job leaves the rows for its next run.
     *
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public <T> T fenced(FenceToken fence, Work<T> work) {
        return inTransaction(connection -> {
            if (!Fences.advance(connection, fence)) {
                throw new StaleFenceException(fence.lock(), fence.token());
            }
            // After the fence check: its row is held by fenced transactions alone, and the next holder waits for a
            // paused one until PostgreSQL ends it (idle_in_transaction_session_timeout; PausedHolderTest).
            try (Statement wait = connection.createStatement()) {
                wait.execute(jobLockTimeout);
            }
            return work.in(connection);
        });
    }
}

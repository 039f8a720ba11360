package io.taskfence.store;

import java.sql.SQLException;
import java.util.Optional;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PostgreSQL failed or could not be reached. The operation did not happen (its transaction rolled back), unless
 * {@link #outcomeUnknown()}: the connection broke during the commit, which may have committed.
 */
public final class TaskStoreException extends RuntimeException {

    /** SQLState class 22, "data exception": a value PostgreSQL refuses, whatever its state. */
    private static final String DATA_EXCEPTION = "22";
    /** SQLState class 08, "connection exception": the connection broke (or could not be made). */
    private static final String CONNECTION_EXCEPTION = "08";

    private final boolean outcomeUnknown;
    private final boolean ofRead;

    public TaskStoreException(SQLException cause) {
        this(cause, false, false);
    }

    private TaskStoreException(SQLException cause, boolean outcomeUnknown, boolean ofRead) {
        super("PostgreSQL: " + cause.getMessage(), cause);
        this.outcomeUnknown = outcomeUnknown;
        this.ofRead = ofRead;
    }

    /** A failure of the reads pool ({@link ReadDatabase}), whose sessions alone have a statement time-out. */
    static TaskStoreException ofRead(SQLException failure) {
        return new TaskStoreException(failure, false, true);
    }

    /**
     * What a failed commit means: if its connection broke, the commit may have reached PostgreSQL and taken
     * effect with only the answer lost, so nobody here knows whether it did; any other failure rolled it back.
     */
    static TaskStoreException ofCommit(SQLException failure) {
        String state = failure.getSQLState();
        return new TaskStoreException(failure, state != null && state.startsWith(CONNECTION_EXCEPTION), false);
    }

    /**
     * Whether the operation may have taken effect after all: the connection broke while its commit was under
     * way. Doing it again may then do it twice (a submission without an idempotency key would make two tasks).
     */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }

    /** Whether PostgreSQL ended the transaction to break a deadlock (SQLState 40P01): nothing of it was written. */
    public boolean deadlock() {
        return sqlState("40P01");
    }

    /**
     * Whether PostgreSQL stopped the statement at its session's {@code statement_timeout} (SQLState 57014): a read
     * of the reads pool ({@link ReadDatabase}) that took longer than it may.
     */
    public boolean readTimedOut() {
        // Not any 57014: a statement of the data path cancelled by hand (pg_cancel_backend) is no read too broad.
        return ofRead && sqlState("57014");
    }

    /** Whether a statement waited {@code lock_timeout} for a row lock and gave up (SQLState 55P03): nothing written. */
    public boolean lockTimedOut() {
        return sqlState("55P03");
    }

    private boolean sqlState(String state) {
        return getCause() instanceof SQLException failure && state.equals(failure.getSQLState());
    }

    /**
     * What PostgreSQL said when it refused a value it was given (e.g. "value overflows numeric format"),
     * without the statement or the value; empty when it failed for another reason (not reachable, a
     * timeout, a conflict), which is no fault of the value.
     */
    public Optional<String> refusedValue() {
        if (!(getCause() instanceof SQLException failure) || failure.getSQLState() == null
                || !failure.getSQLState().startsWith(DATA_EXCEPTION)) {
            return Optional.empty();
        }
        ServerErrorMessage said = failure instanceof PSQLException refused ? refused.getServerErrorMessage() : null;
        return Optional.of(said != null && said.getMessage() != null ? said.getMessage()
                : "SQLState " + failure.getSQLState());
    }
}

package io.taskfence.task;

import java.sql.SQLException;
import java.util.Optional;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** PostgreSQL failed or could not be reached; the operation did not happen (its transaction rolled back). */
public final class TaskStoreException extends RuntimeException {

    /** SQLState class 22, "data exception": a value PostgreSQL refuses, whatever its state. */
    private static final String DATA_EXCEPTION = "22";

    TaskStoreException(SQLException cause) {
        super("PostgreSQL: " + cause.getMessage(), cause);
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

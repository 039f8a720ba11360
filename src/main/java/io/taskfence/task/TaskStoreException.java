package io.taskfence.task;

import java.sql.SQLException;

/** PostgreSQL failed or could not be reached; the operation did not happen (its transaction rolled back). */
public final class TaskStoreException extends RuntimeException {

    TaskStoreException(SQLException cause) {
        super("PostgreSQL: " + cause.getMessage(), cause);
    }
}

package io.taskfence.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.SQLException;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Only a data exception (SQLState class 22) is a refused value; an outage stays an outage (503). */
class TaskStoreExceptionTest {

    @Test
    void aDataExceptionIsARefusedValue() {
        assertEquals(Optional.of("SQLState 22003"), new TaskStoreException(new SQLException("overflow", "22003")).refusedValue());
    }

    @Test
    void connectionProblemsAndOtherFailuresAreNot() {
        for (String state : new String[] { "08006", "57P01", "40001", "23505", null }) {
            assertEquals(Optional.empty(), new TaskStoreException(new SQLException("failed", state)).refusedValue(), state);
        }
    }
}

package io.taskfence.task;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The fence check of DESIGN section 3, run first in every fenced transaction. */
final class Fences {

    private Fences() {
    }

    /**
     * Records {@code token} as the newest token of {@code lock}, unless a newer one was recorded before.
     * The row lock it takes serialises overlapping holders until this transaction ends.
     *
     * @return false if a newer token has written: the caller must roll back
     */
    static boolean advance(Connection connection, String lock, long token) throws SQLException {
        try (PreparedStatement fence = connection.prepareStatement("insert into fences (name, token) values (?, ?) "
                + "on conflict (name) do update set token = excluded.token where fences.token <= excluded.token")) {
            fence.setString(1, lock);
            fence.setLong(2, token);
            return fence.executeUpdate() == 1;
        }
    }
}

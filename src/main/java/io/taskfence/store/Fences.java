package io.taskfence.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The fence check of DESIGN.md, "Fencing (PostgreSQL)", run first in every fenced transaction ({@link TaskDatabase#fenced}). */
final class Fences {

    private Fences() {
    }

    /**
     * Records the token as the newest of its lock, unless a newer one was recorded before, or the same
     * number by another holder. The row lock it takes serialises overlapping holders until this
     * transaction ends.
     *
     * @return false if the token is refused: the caller must roll back
     */
    static boolean advance(Connection connection, FenceToken token) throws SQLException {
        try (PreparedStatement fence = connection.prepareStatement("insert into fences (name, token, holder) "
                + "values (?, ?, ?) on conflict (name) do update set token = excluded.token, holder = excluded.holder "
                + "where fences.token < excluded.token "
                + "or (fences.token = excluded.token and fences.holder is not distinct from excluded.holder)")) {
            fence.setString(1, token.lock());
            fence.setLong(2, token.token());
            fence.setString(3, token.holder());
            return fence.executeUpdate() == 1;
        }
    }
}

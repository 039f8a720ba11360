package io.taskfence.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** One number from the task table, read behind the service's back. */
final class Rows {

    private Rows() {
    }

    static long count(Connection db, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement query = db.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                query.setObject(i + 1, parameters[i]);
            }
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}

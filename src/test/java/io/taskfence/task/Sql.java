package io.taskfence.task;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

/** Direct SQL for tests that look at or age rows behind the service's back. */
public final class Sql {

    private Sql() {
    }

    public static int run(DataSource db, String sql, Object... parameters) {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One row of a query's result, as a {@link ResultSet} positioned on it. */
    @FunctionalInterface
    public interface Row {
        void read(ResultSet row) throws SQLException;
    }

    public static void rows(DataSource db, String sql, Row each, Object... parameters) {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    each.read(rows);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long count(DataSource db, String sql, Object... parameters) {
        return Long.parseLong(value(db, sql, parameters));
    }

    /** The text of the first column of the first row. */
    public static String value(DataSource db, String sql, Object... parameters) {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

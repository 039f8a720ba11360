package io.taskfence.history;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.HashMap;
import java.util.Map;

/** The rows of {@code work_history} as tallies: added to (read, merged, written back) and read. */
final class HistoryRows {

    /** The type or owner of the series that covers all of them. */
    static final String ALL = "*";

    static final String COLUMNS = "type, owner, bucket, started, succeeded, failed, dead, cancelled, wait_counts, "
            + "wait_max_ms, run_counts, run_max_ms";
    private static final String HELD = "select " + COLUMNS + " from work_history where (type, owner, bucket) in "
            + "(select * from unnest(?::text[], ?::text[], ?::timestamptz[])) for update";
    private static final String WRITE = "insert into work_history (" + COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?, "
            + "?, ?, ?, ?) on conflict (type, owner, bucket) do update set started = excluded.started, succeeded = "
            + "excluded.succeeded, failed = excluded.failed, dead = excluded.dead, cancelled = excluded.cancelled, "
            + "wait_counts = excluded.wait_counts, wait_max_ms = excluded.wait_max_ms, run_counts = excluded.run_counts, "
            + "run_max_ms = excluded.run_max_ms";

    private HistoryRows() {
    }

    /** Adds {@code tallies} to their rows, in the caller's transaction. */
    static void add(Connection connection, Map<SeriesBucket, Tally> tallies) throws SQLException {
        if (tallies.isEmpty()) {
            return;
        }
        Map<SeriesBucket, Tally> rows = new HashMap<>();
        try (PreparedStatement held = connection.prepareStatement(HELD)) {
            held.setArray(1, connection.createArrayOf("text", tallies.keySet().stream().map(SeriesBucket::type).toArray()));
            held.setArray(2, connection.createArrayOf("text", tallies.keySet().stream().map(SeriesBucket::owner).toArray()));
            held.setArray(3, connection.createArrayOf("timestamptz",
                    tallies.keySet().stream().map(key -> Timestamp.from(key.bucket())).toArray()));
            try (ResultSet row = held.executeQuery()) {
                while (row.next()) {
                    rows.put(key(row), tally(row));
                }
            }
        }
        try (PreparedStatement write = connection.prepareStatement(WRITE)) {
            for (Map.Entry<SeriesBucket, Tally> change : tallies.entrySet()) {
                Tally total = rows.computeIfAbsent(change.getKey(), key -> new Tally());
                total.addAll(change.getValue());
                write.setString(1, change.getKey().type());
                write.setString(2, change.getKey().owner());
                write.setTimestamp(3, Timestamp.from(change.getKey().bucket()));
                write.setInt(4, total.started);
                write.setInt(5, total.succeeded);
                write.setInt(6, total.failed);
                write.setInt(7, total.dead);
                write.setInt(8, total.cancelled);
                write.setArray(9, connection.createArrayOf("integer", total.waits.counts()));
                write.setLong(10, total.waits.maxMs());
                write.setArray(11, connection.createArrayOf("integer", total.runs.counts()));
                write.setLong(12, total.runs.maxMs());
                write.addBatch();
            }
            write.executeBatch();
        }
    }

    /** The key of a row selected with {@link #COLUMNS}. */
    static SeriesBucket key(ResultSet row) throws SQLException {
        return new SeriesBucket(row.getString(1), row.getString(2), row.getTimestamp(3).toInstant());
    }

    /** The tally of a row selected with {@link #COLUMNS}. */
    static Tally tally(ResultSet row) throws SQLException {
        Tally tally = new Tally(new DurationHistogram(ints(row.getArray(9)), row.getLong(10)),
                new DurationHistogram(ints(row.getArray(11)), row.getLong(12)));
        tally.started = row.getInt(4);
        tally.succeeded = row.getInt(5);
        tally.failed = row.getInt(6);
        tally.dead = row.getInt(7);
        tally.cancelled = row.getInt(8);
        return tally;
    }

    private static int[] ints(Array array) throws SQLException {
        Integer[] values = (Integer[]) array.getArray();
        int[] ints = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            ints[i] = values[i];
        }
        return ints;
    }
}

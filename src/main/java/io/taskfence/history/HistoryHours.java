package io.taskfence.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;
import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskDatabase;

/**
 * The history's age: minutes more than a day old fold into their hour (oldest hour first, a bounded batch of rows per
 * fenced transaction, the sums the same at every step), and rows older than {@code taskfence.history.kept} go.
 */
@ApplicationScoped
class HistoryHours {

    /** Minutes are kept this long, so that a day's chart has them all. */
    static final Duration MINUTES_KEPT = Duration.ofDays(1);

    private static final String PROGRESS = "select hourly_before, date_trunc('hour', now() - ? * interval "
            + "'1 millisecond', 'UTC') from work_history_progress for update";
    private static final String OLDEST_MINUTE = "select date_trunc('hour', min(bucket), 'UTC') from work_history "
            + "where bucket >= ?";
    private static final String MINUTES_OF_HOUR = "delete from work_history where (type, owner, bucket) in (select "
            + "type, owner, bucket from work_history where bucket > ? and bucket < ? order by bucket limit ?) returning "
            + HistoryRows.COLUMNS;
    private static final String HOURLY_BEFORE = "update work_history_progress set hourly_before = ?";
    private static final String OLD = "delete from work_history where (type, owner, bucket) in (select type, owner, "
            + "bucket from work_history where bucket < now() - ? * interval '1 millisecond' order by bucket limit ?)";

    private final TaskDatabase database;
    private final Duration kept;
    private final int batchSize;

    HistoryHours(TaskDatabase database, TaskfenceConfig config) {
        this.database = database;
        this.kept = config.history().kept();
        this.batchSize = config.history().batchSize();
    }

    Duration kept() {
        return kept;
    }

    /** Folds a batch of the oldest hour's minutes into its first: whether there may be more to fold. */
    boolean foldOldestHour(FenceToken fence) {
        return database.fenced(fence, connection -> {
            Instant hourlyBefore;
            Instant limit;
            try (PreparedStatement progress = connection.prepareStatement(PROGRESS)) {
                progress.setLong(1, MINUTES_KEPT.toMillis());
                try (ResultSet row = progress.executeQuery()) {
                    row.next();
                    hourlyBefore = row.getTimestamp(1).toInstant();
                    limit = row.getTimestamp(2).toInstant();
                }
            }
            if (!hourlyBefore.isBefore(limit)) {
                return false;
            }
            Instant hour;
            try (PreparedStatement oldest = connection.prepareStatement(OLDEST_MINUTE)) {
                oldest.setTimestamp(1, Timestamp.from(hourlyBefore));
                try (ResultSet row = oldest.executeQuery()) {
                    row.next();
                    Timestamp first = row.getTimestamp(1);
                    hour = first == null ? limit : first.toInstant();
                }
            }
            if (!hour.isBefore(limit)) {
                setHourlyBefore(connection, limit);
                return false;
            }
            Map<SeriesBucket, Tally> tallies = new HashMap<>();
            int folded = 0;
            try (PreparedStatement minutes = connection.prepareStatement(MINUTES_OF_HOUR)) {
                minutes.setTimestamp(1, Timestamp.from(hour));
                minutes.setTimestamp(2, Timestamp.from(hour.plus(1, ChronoUnit.HOURS)));
                minutes.setInt(3, batchSize);
                try (ResultSet row = minutes.executeQuery()) {
                    while (row.next()) {
                        folded++;
                        SeriesBucket minute = HistoryRows.key(row);
                        tallies.computeIfAbsent(new SeriesBucket(minute.type(), minute.owner(), hour), k -> new Tally())
                                .addAll(HistoryRows.tally(row));
                    }
                }
            }
            HistoryRows.add(connection, tallies);
            if (folded < batchSize) {
                setHourlyBefore(connection, hour.plus(1, ChronoUnit.HOURS));
            }
            return true;
        });
    }

    /** Deletes a batch of the rows older than kept: whether there may be more. */
    boolean deleteOld(FenceToken fence) {
        return database.fenced(fence, connection -> {
            try (PreparedStatement delete = connection.prepareStatement(OLD)) {
                delete.setLong(1, kept.toMillis());
                delete.setInt(2, batchSize);
                return delete.executeUpdate() == batchSize;
            }
        });
    }

    private static void setHourlyBefore(Connection connection, Instant before) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(HOURLY_BEFORE)) {
            update.setTimestamp(1, Timestamp.from(before));
            update.executeUpdate();
        }
    }
}

package io.taskfence.history;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.ReadDatabase;

/** Reads a series of {@code work_history} in steps (DESIGN.md, "History of work"): rows add up into their step. */
@ApplicationScoped
public class HistoryReads {

    /** The most points one read answers: a day of minutes. */
    public static final int MAX_POINTS = 1440;

    private static final String SERIES = "select " + HistoryRows.COLUMNS + " from work_history where type = ? and "
            + "owner = ? and bucket >= ? and bucket < ? order by bucket";
    private static final String FOLDED_UNTIL = "select folded_until from work_history_progress";

    /** A series' points, and how far the history is complete. */
    public record Series(Optional<Instant> foldedUntil, List<HistoryPoint> points) {
    }

    private final ReadDatabase reads;

    HistoryReads(ReadDatabase reads) {
        this.reads = reads;
    }

    /**
     * The series of {@code type} and {@code owner} (null: all) from {@code from} to {@code to}, a point per
     * {@code step}; at most {@link #MAX_POINTS} points.
     */
    public Series read(String type, String owner, Instant from, Instant to, Duration step) {
        int points = (int) Math.min(MAX_POINTS, (Duration.between(from, to).toMillis() + step.toMillis() - 1)
                / step.toMillis());
        Tally[] tallies = new Tally[points];
        for (int i = 0; i < points; i++) {
            tallies[i] = new Tally();
        }
        Instant end = from.plus(step.multipliedBy(points));
        Optional<Instant> foldedUntil = reads.read(connection -> {
            try (PreparedStatement select = connection.prepareStatement(SERIES)) {
                select.setString(1, type == null ? HistoryRows.ALL : type);
                select.setString(2, owner == null ? HistoryRows.ALL : owner);
                select.setTimestamp(3, Timestamp.from(from));
                select.setTimestamp(4, Timestamp.from(end));
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        Instant bucket = row.getTimestamp(3).toInstant();
                        tallies[(int) (Duration.between(from, bucket).toMillis() / step.toMillis())]
                                .addAll(HistoryRows.tally(row));
                    }
                }
            }
            try (PreparedStatement select = connection.prepareStatement(FOLDED_UNTIL);
                    ResultSet row = select.executeQuery()) {
                Timestamp until = row.next() ? row.getTimestamp(1) : null;
                return Optional.ofNullable(until).map(Timestamp::toInstant);
            }
        });
        List<HistoryPoint> series = new ArrayList<>(points);
        for (int i = 0; i < points; i++) {
            series.add(HistoryPoint.of(from.plus(step.multipliedBy(i)), tallies[i]));
        }
        return new Series(foldedUntil, series);
    }
}

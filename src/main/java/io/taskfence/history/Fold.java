package io.taskfence.history;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What one transaction of the history job adds up: each change counted in its bucket (its minute, or its hour before
 * the job's {@code hourly_before}) of four series: its type and owner, its type, its owner, and all.
 */
final class Fold {

    private final Instant hourlyBefore;
    private final Instant keptFrom;
    private final Map<SeriesBucket, Tally> tallies = new HashMap<>();

    Fold(Instant hourlyBefore, Instant keptFrom) {
        this.hourlyBefore = hourlyBefore;
        this.keptFrom = keptFrom;
    }

    /** Counts {@code change} at {@code at} for a task of {@code type} and {@code owner}; nothing if older than kept. */
    void add(String type, String owner, Instant at, Consumer<Tally> change) {
        if (at == null || at.isBefore(keptFrom)) {
            return;
        }
        Instant bucket = at.truncatedTo(at.isBefore(hourlyBefore) ? ChronoUnit.HOURS : ChronoUnit.MINUTES);
        for (SeriesBucket key : new SeriesBucket[] { new SeriesBucket(type, owner, bucket),
                new SeriesBucket(type, HistoryRows.ALL, bucket), new SeriesBucket(HistoryRows.ALL, owner, bucket),
                new SeriesBucket(HistoryRows.ALL, HistoryRows.ALL, bucket) }) {
            change.accept(tallies.computeIfAbsent(key, k -> new Tally()));
        }
    }

    Map<SeriesBucket, Tally> tallies() {
        return tallies;
    }
}

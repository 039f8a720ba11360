package io.taskfence.history;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * What a series did in one step from {@code at}: attempts started, tasks ended (by their end), attempts failed, and
 * the wait and run times of the attempts that ended tasks (absent when none did).
 */
@Schema(requiredProperties = { "at", "started", "succeeded", "failed", "dead", "cancelled" })
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HistoryPoint(Instant at, int started, int succeeded, int failed, int dead, int cancelled,
        Durations waitMs, Durations runMs) {

    /** Milliseconds: the median and the 95th percentile (each at most 9 % above), and the longest. */
    @Schema(requiredProperties = { "p50", "p95", "max" })
    public record Durations(long p50, long p95, long max) {

        static Durations of(DurationHistogram histogram) {
            return histogram.total() == 0 ? null
                    : new Durations(histogram.percentile(0.5), histogram.percentile(0.95), histogram.maxMs());
        }
    }

    static HistoryPoint of(Instant at, Tally tally) {
        return new HistoryPoint(at, tally.started, tally.succeeded, tally.failed, tally.dead, tally.cancelled,
                Durations.of(tally.waits), Durations.of(tally.runs));
    }
}

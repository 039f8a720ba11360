package io.taskfence.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one run of the schedules job does with one due schedule (DESIGN.md, "Decisions", "Misfires"): the
 * occurrences that become tasks, and the schedule's next occurrence after them. Of the occurrences from
 * {@code nextFireAt} up to now, those due more than {@code threshold} ago were missed: {@link Misfire#SKIP}
 * makes nothing of them, {@link Misfire#ONCE} one task, the latest missed one's. Each later one (late by
 * the threshold at most) becomes its own task, at most {@code limit} a run; the next run goes on from the
 * first one left over.
 *
 * @param occurrences the occurrences to make tasks of, in order; each task runs at its occurrence
 * @param next the schedule's next {@code nextFireAt}; empty when the expression fires no more
 */
public record FirePlan(List<Instant> occurrences, Optional<Instant> next) {

    public static FirePlan of(Cron cron, Instant nextFireAt, Instant now, Duration threshold, Misfire misfire, int limit) {
        List<Instant> occurrences = new ArrayList<>();
        Instant onTimeFrom = now.minus(threshold);
        Instant first = nextFireAt;
        if (first.isBefore(onTimeFrom)) {
            // Missed: nextFireAt up to the last occurrence before the threshold.
            Optional<Instant> lastMissed = cron.atOrBefore(onTimeFrom.minusNanos(1)).filter(last -> !last.isBefore(nextFireAt));
            if (misfire == Misfire.ONCE) {
                occurrences.add(lastMissed.orElse(nextFireAt));
            }
            Optional<Instant> onTime = cron.after(lastMissed.orElse(nextFireAt));
            if (onTime.isEmpty()) {
                return new FirePlan(occurrences, Optional.empty());
            }
            first = onTime.get();
        }
        Optional<Instant> next = Optional.of(first);
        while (next.isPresent() && !next.get().isAfter(now) && occurrences.size() < limit) {
            occurrences.add(next.get());
            next = cron.after(next.get());
        }
        return new FirePlan(List.copyOf(occurrences), next);
    }
}

package io.taskfence.schedule;

import java.util.Locale;
import java.util.Optional;

/**
 * What becomes of occurrences that were missed, i.e. due more than the misfire threshold ago when the
 * schedules job came to them (the service was down, or the schedule's replica stalled): DESIGN.md, "Decisions".
 * Occurrences late by less are not missed: each still becomes its task.
 */
public enum Misfire {
    /** Missed occurrences are not run. */
    SKIP,
    /** All the missed occurrences together become one task, the latest one's. */
    ONCE;

    /** The name the API and the table use. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Misfire> of(String id) {
        for (Misfire misfire : values()) {
            if (misfire.id().equals(id)) {
                return Optional.of(misfire);
            }
        }
        return Optional.empty();
    }
}

package io.taskfence.api;

import java.time.Instant;
import java.time.format.DateTimeParseException;

import io.taskfence.api.problem.Problems;

/** An instant as a query or body writes it: ISO-8601, within the years a task's times may take; else 400. */
public final class QueryInstant {

    private QueryInstant() {
    }

    /** {@code value} as an instant, or null if there is none; {@code name} and {@code in} say where, for the 400. */
    public static Instant parse(String value, String name, String in) {
        if (value == null) {
            return null;
        }
        try {
            Instant instant = Instant.parse(value);
            if (!instant.isBefore(SubmissionChecks.EARLIEST) && !instant.isAfter(SubmissionChecks.LATEST)) {
                return instant;
            }
        } catch (DateTimeParseException e) {
            // answered below
        }
        throw Problems.invalid(in, name, "must be an ISO-8601 instant from " + SubmissionChecks.EARLIEST + " to "
                + SubmissionChecks.LATEST + ", not '" + value + "'");
    }
}

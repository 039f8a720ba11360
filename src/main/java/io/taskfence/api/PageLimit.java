package io.taskfence.api;

import io.taskfence.api.problem.Problems;

/**
 * The {@code limit} query parameter of a listing (tasks, batches): a whole number from 1 to {@link #MAX}. Parsed here
 * rather than by JAX-RS, which answers a bad one with a bare 404.
 */
public final class PageLimit {

    public static final int MAX = 100;

    private PageLimit() {
    }

    /** ASCII digits only: Integer.parseInt also takes "+5" and other scripts' digits. */
    public static int parse(String limit) {
        if (limit.matches("[0-9]{1,3}")) {
            int value = Integer.parseInt(limit);
            if (value >= 1 && value <= MAX) {
                return value;
            }
        }
        throw Problems.invalid("query", "limit", "must be a whole number from 1 to " + MAX + ", not '" + limit + "'");
    }
}

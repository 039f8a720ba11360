package io.taskfence.types;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * One task type's limits (DESIGN.md, "Configuration", "Type limits"); each empty when the type has none.
 *
 * @param maxPerKey at most this many of one concurrency group's tasks ENQUEUED, PROCESSING or waiting to run again
 *        at once (FAILED, or PENDING after a "later" or a lost message)
 * @param ratePerKey at most this many of one concurrency group's tasks started in the rate's window
 */
public record TypeLimit(String type, OptionalInt maxConcurrency, Optional<Rate> rate, OptionalInt maxPerKey,
        Optional<Rate> ratePerKey) {

    public static TypeLimit none(String type) {
        return new TypeLimit(type, OptionalInt.empty(), Optional.empty(), OptionalInt.empty(), Optional.empty());
    }

    public boolean limited() {
        return maxConcurrency.isPresent() || rate.isPresent() || grouped();
    }

    /** Whether dispatch takes the type's tasks group by group: it has {@code max-per-key} or {@code rate-per-key}. */
    public boolean grouped() {
        return maxPerKey.isPresent() || ratePerKey.isPresent();
    }

    /** Whether a task of the type that stops running can make room for another: dispatch should look again soon. */
    public boolean boundsRunning() {
        return maxConcurrency.isPresent() || maxPerKey.isPresent();
    }
}

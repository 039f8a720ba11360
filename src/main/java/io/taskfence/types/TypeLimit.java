package io.taskfence.types;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * One task type's limits (DESIGN.md, "Configuration", "Type limits"); each empty when the type has none.
 *
 * @param maxPerKey at most this many of one concurrency group's tasks ENQUEUED, PROCESSING or waiting to run again
 *        at once (FAILED, or PENDING after a "later" or a lost message)
 */
public record TypeLimit(String type, OptionalInt maxConcurrency, Optional<Rate> rate, OptionalInt maxPerKey) {

    public static TypeLimit none(String type) {
        return new TypeLimit(type, OptionalInt.empty(), Optional.empty(), OptionalInt.empty());
    }

    public boolean limited() {
        return maxConcurrency.isPresent() || rate.isPresent() || maxPerKey.isPresent();
    }

    /** Whether a task of the type that stops running can make room for another: dispatch should look again soon. */
    public boolean boundsRunning() {
        return maxConcurrency.isPresent() || maxPerKey.isPresent();
    }
}

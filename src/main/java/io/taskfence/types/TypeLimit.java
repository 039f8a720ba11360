package io.taskfence.types;

import java.util.Optional;
import java.util.OptionalInt;

/** One task type's global limits (DESIGN.md, "Configuration", "Type limits"); each empty when the type has none. */
public record TypeLimit(String type, OptionalInt maxConcurrency, Optional<Rate> rate) {

    public static TypeLimit none(String type) {
        return new TypeLimit(type, OptionalInt.empty(), Optional.empty());
    }

    public boolean limited() {
        return maxConcurrency.isPresent() || rate.isPresent();
    }
}

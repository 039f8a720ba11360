package io.taskfence.api;

import java.util.Optional;
import java.util.UUID;

/** Ids in paths and filters: a UUID in its canonical form (any case) only, as UUID.fromString also takes "1-2-3-4-5". */
public final class CanonicalIds {

    private CanonicalIds() {
    }

    public static Optional<UUID> parse(String id) {
        try {
            UUID parsed = UUID.fromString(id);
            return parsed.toString().equalsIgnoreCase(id) ? Optional.of(parsed) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}

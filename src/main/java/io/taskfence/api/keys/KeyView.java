package io.taskfence.api.keys;

import java.time.Instant;
import java.util.List;
import java.util.TreeSet;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.taskfence.keys.KeySettings;
import io.taskfence.types.Rate;

/** An API key as answered: its role and limits, never a secret. */
@Schema(name = "Key", requiredProperties = { "name", "role", "types", "maxUnfinished", "weight", "maxPriority", "rate",
        "allowedHosts", "configured" })
public record KeyView(String name,
        @Schema(enumeration = { "submit", "admin", "worker" }) String role,
        @Schema(description = "a worker key's remote types; empty for other keys") List<String> types,
        @Schema(nullable = true, description = "its own quota; null: taskfence.auth.max-unfinished") Integer maxUnfinished,
        int weight,
        @Schema(nullable = true, description = "its own cap; null: 1000") Integer maxPriority,
        @Schema(nullable = true, description = "its own rate; null: taskfence.auth.rate") String rate,
        @Schema(nullable = true, description = "its own destinations; null: all of taskfence.http.allowed-hosts")
        List<String> allowedHosts,
        @Schema(description = "true: taskfence.auth.keys holds it, and only a new start changes it") boolean configured) {

    static KeyView of(KeySettings key) {
        return new KeyView(key.name(), key.role(), List.copyOf(new TreeSet<>(key.workerTypes())),
                key.maxUnfinished().isPresent() ? key.maxUnfinished().getAsInt() : null, key.weight(),
                key.maxPriority().isPresent() ? key.maxPriority().getAsInt() : null,
                key.rate().map(Rate::toString).orElse(null), key.allowedHosts().orElse(null), key.configured());
    }

    /** Every key. */
    @Schema(name = "KeyList", requiredProperties = "keys")
    public record Listing(List<KeyView> keys) {
    }

    /** A key just made, with its secrets: the only answer that ever shows them. */
    @Schema(name = "CreatedKey", requiredProperties = { "key", "secret", "callbackSecret" })
    public record Created(KeyView key,
            @Schema(description = "the key itself, for Authorization: Bearer; shown this once, stored as a digest")
            String secret,
            @Schema(description = "what its callbacks are signed with (whsec_...), for their receivers")
            String callbackSecret) {

        @Override
        public String toString() {
            return "Created[key=" + key.name() + ", secrets hidden]"; // a record would print them
        }
    }

    /** A key's new secret, and when the ones before it stop working. */
    @Schema(name = "RotatedKey", requiredProperties = { "key", "secret", "previousSecretsExpireAt" })
    public record Rotated(KeyView key,
            @Schema(description = "the new secret; shown this once") String secret,
            @Schema(description = "when the secrets before it stop working (the overlap's end)")
            Instant previousSecretsExpireAt) {

        @Override
        public String toString() {
            return "Rotated[key=" + key.name() + ", secret hidden]"; // a record would print it
        }
    }
}

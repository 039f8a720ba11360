package io.taskfence.api.keys;

import java.util.List;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code PATCH /api/v1/keys/{name}}: the limits to change, as {@link NewKey} has them; a field absent (or
 * null) stays as it is. Its name, role and secrets do not change here.
 */
@Schema(name = "KeyChanges")
public record KeyChanges(
        @Size(max = NewKey.MAX_TYPES, message = NewKey.TYPES_RULE)
        @Schema(description = "a worker key's remote types from now on, or [\"*\"]")
        List<@NotNull @Size(min = 1, max = 64) String> types,

        @Min(0) @Max(NewKey.MAX_UNFINISHED)
        Integer maxUnfinished,

        @Min(1) @Max(100)
        Integer weight,

        @Min(0) @Max(1000)
        Integer maxPriority,

        @Pattern(regexp = NewKey.RATE, message = NewKey.RATE_RULE)
        String rate,

        @Size(max = NewKey.MAX_HOSTS, message = NewKey.HOSTS_RULE)
        List<@NotNull @Size(min = 1, max = 300) String> allowedHosts) {
}

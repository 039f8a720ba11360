package io.taskfence.api.keys;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.taskfence.api.Delay;

/** The body of {@code POST /api/v1/keys/{name}/rotate}. */
@Schema(name = "KeyRotation", requiredProperties = "overlap")
public record Rotation(
        @NotNull @Pattern(regexp = Delay.SPAN_PATTERN, message = OVERLAP_RULE)
        @Schema(description = "how long the secrets before the new one keep working, at most 7 days (168h); 0s: "
                + "they stop at once", examples = "1h")
        String overlap) {

    static final String OVERLAP_RULE = "must be <n>ms, <n>s, <n>m or <n>h, at most 168h";
}

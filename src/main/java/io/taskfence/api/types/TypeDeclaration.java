package io.taskfence.api.types;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The body of {@code PUT /api/v1/types/{type}}: a remote type an admin declares (DESIGN.md, "Remote workers"). Only
 * remote types can be declared: a type this service runs needs a handler in its code.
 */
@Schema(name = "TypeDeclaration")
record TypeDeclaration(
        @NotNull(message = "must be true: only remote types are declared")
        @AssertTrue(message = "must be true: only remote types are declared; a type run here needs a handler")
        @Schema(description = "true: remote workers run the type's tasks") Boolean remote,

        @Schema(description = "a JSON Schema (draft 2020-12) the type's payloads must meet at submission; none when "
                + "absent") ObjectNode schema) {
}

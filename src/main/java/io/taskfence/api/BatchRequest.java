package io.taskfence.api;

import java.util.List;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code POST /api/v1/tasks/batch}. Its tasks are not cascaded into by Bean Validation here: each
 * is checked on its own (SubmissionChecks) and refused on its own.
 */
@Schema(name = "SubmitBatch")
public record BatchRequest(
        @NotNull(message = BatchRequest.SIZE_RULE) @Size(min = 1, max = BatchRequest.MAX_TASKS, message = BatchRequest.SIZE_RULE)
        @Schema(description = "1 to 1000 tasks, answered in this order")
        List<BatchTask> tasks) {

    static final int MAX_TASKS = 1000;
    static final String SIZE_RULE = "must be a list of 1 to " + MAX_TASKS + " tasks";
}

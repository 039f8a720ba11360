package io.taskfence.api.tasks;

import java.util.List;
import java.util.UUID;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code POST /api/v1/tasks/batch}. Its tasks are not cascaded into by Bean Validation here: each
 * is checked on its own (NewTasks) and refused on its own. With {@code then} or {@code batchId}, the tasks
 * stored are a batch's (DESIGN.md, "Batches").
 */
@Schema(name = "SubmitBatch")
public record BulkRequest(
        @NotNull(message = BulkRequest.SIZE_RULE) @Size(min = 1, max = BulkRequest.MAX_TASKS, message = BulkRequest.SIZE_RULE)
        @Schema(description = "1 to 1000 tasks, answered in this order")
        List<BulkTask> tasks,
        @Schema(description = "makes the tasks stored a new batch, and this task its then task: WAITING until every "
                + "task of the batch has ended, then run once, with the batch's outcome in its payload's member "
                + "'batch' (DESIGN.md, \"Batches\"); its idempotencyKey makes sending the request again join the "
                + "batch it made")
        BulkTask then,
        @Schema(description = "adds the tasks stored to this open batch of the key")
        UUID batchId,
        @Schema(description = "true keeps the batch (of then or batchId) open for more requests naming its batchId; "
                + "else this request closes it")
        Boolean open) {

    static final int MAX_TASKS = 1000;
    static final String SIZE_RULE = "must be a list of 1 to " + MAX_TASKS + " tasks";
}

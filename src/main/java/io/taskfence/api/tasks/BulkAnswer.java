package io.taskfence.api.tasks;

import java.util.List;

import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.taskfence.api.problem.Problem;
import io.taskfence.task.Task;
import io.taskfence.task.batch.BatchView;

/**
 * The answer of {@code POST /api/v1/tasks/batch}: every task of the request, in its order, the tallies, and the batch
 * the tasks stored joined (with {@code then} or {@code batchId}).
 */
@Schema(name = "BatchAnswer", requiredProperties = { "items", "created", "existing", "refused" })
public record BulkAnswer(
        @Schema(description = "one per task of the request, in its order") List<Item> items,
        @Schema(description = "tasks stored by this request (status 201)") int created,
        @Schema(description = "tasks whose idempotency key already named the same request (status 200)") int existing,
        @Schema(description = "tasks refused, nothing stored for them (status 400, 413 or 422)") int refused,
        @Schema(description = "the batch the tasks stored joined, with then or batchId") @JsonInclude(JsonInclude.Include.NON_NULL)
        BatchView batch) {

    /**
     * What one task came to, with the status a single submission of it would have answered: 201 and the
     * task created, 200 and the task its idempotency key already named, or a 4xx and the problem.
     */
    @Schema(name = "BatchItem", requiredProperties = { "index", "status" })
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Item(
            @Schema(description = "the task's position in the request, from 0") int index,
            @Schema(description = "201 created, 200 existing, 400, 413 or 422 refused") int status,
            @Schema(description = "the task, unless refused") Task task,
            @Schema(description = "why the task was refused") Problem problem) {

        /** The item of the task at {@code index}, refused with {@code problem} (its instance the request's path). */
        static Item refused(int index, Problem problem, UriInfo uri) {
            return new Item(index, problem.status(), null, problem.at(uri.getPath()));
        }
    }

    static BulkAnswer of(List<Item> items, BatchView batch) {
        int created = 0;
        int existing = 0;
        for (Item item : items) {
            created += item.status() == 201 ? 1 : 0;
            existing += item.status() == 200 ? 1 : 0;
        }
        return new BulkAnswer(items, created, existing, items.size() - created - existing, batch);
    }
}

package io.taskfence.api.actions;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code POST /api/v1/tasks/actions/cancel} and {@code .../retry}: the listing's filters (DESIGN.md, "REST API", "Listing"),
 * as JSON. An empty object matches every task the action can move.
 */
@Schema(name = "ActionFilter")
public record ActionRequest(
        @Schema(description = "one status the action moves from (cancel: WAITING, PENDING, ENQUEUED, PROCESSING or "
                + "FAILED; retry: DEAD or CANCELLED); all of those when absent") String status,
        @Schema(description = "a task type") String type,
        @Schema(description = "an API key's name (an admin key's filter; a submit key acts on its own tasks)") String owner,
        @Schema(description = "a batch's id") String batch,
        @Schema(description = "created at or after this instant (ISO-8601)") String createdAfter,
        @Schema(description = "created before this instant (ISO-8601)") String createdBefore,
        @Schema(description = "text the last error contains, case-insensitive") String error,
        @Schema(description = "text the payload or the last error contains, case-insensitive") String text) {
}

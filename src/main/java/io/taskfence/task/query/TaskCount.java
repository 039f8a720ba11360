package io.taskfence.task.query;

import java.time.Instant;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A count of tasks ({@code GET /api/v1/tasks/count}): {@code count} tasks, or at least that many when {@code atLeast}
 * (the count stopped at its cap), created from {@code createdAfter} (the filter's, or the search window's start; null:
 * no bound) and before {@code createdBefore}, the bound it counted up to. An action given both takes what was counted.
 */
@Schema(requiredProperties = { "count", "atLeast", "createdAfter", "createdBefore" })
public record TaskCount(long count, boolean atLeast, @Schema(nullable = true) Instant createdAfter, Instant createdBefore) {
}

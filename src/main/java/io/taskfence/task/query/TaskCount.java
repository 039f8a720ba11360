package io.taskfence.task.query;

import java.time.Instant;

/**
 * A count of tasks ({@code GET /api/v1/tasks/count}): {@code count} tasks, or at least that many when {@code atLeast}
 * (the count stopped at its cap), all created before {@code createdBefore}, the bound it counted up to.
 */
public record TaskCount(long count, boolean atLeast, Instant createdBefore) {
}

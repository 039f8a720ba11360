package io.taskfence.task.action;

import java.time.Instant;
import java.util.UUID;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A bulk action as clients see it: the walk has looked at {@code lookedAt} of the tasks it finds, moved
 * {@code changed} and left {@code overQuota} as they were (their owner's quota had no room). {@code state} is RUNNING
 * until the walk has passed the last task, then DONE, with {@code total} the tasks it took (not counted while it runs:
 * asking counts nothing, so that no request's work grows with the tasks a key has).
 */
@Schema(requiredProperties = { "id", "action", "state", "filter", "lookedAt", "changed", "overQuota", "requestedBy",
        "requestedAt" })
public record ActionView(
        UUID id,
        String action,
        String state,
        ObjectNode filter,
        @JsonInclude(Include.NON_NULL) Long total,
        long lookedAt,
        long changed,
        long overQuota,
        @Schema(nullable = true) String requestedBy,
        Instant requestedAt,
        @JsonInclude(Include.NON_NULL) Instant finishedAt) {
}

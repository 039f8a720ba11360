package io.taskfence.task.action;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A bulk action as clients see it: {@code total} tasks matched its filter when it was asked for; the walk has looked
 * at {@code lookedAt} of those it finds, moved {@code changed} and left {@code overQuota} as they were (their owner's
 * quota had no room). {@code state} is RUNNING until the walk has passed the last task, then DONE.
 */
public record ActionView(
        UUID id,
        String action,
        String state,
        ObjectNode filter,
        long total,
        long lookedAt,
        long changed,
        long overQuota,
        String requestedBy,
        Instant requestedAt,
        @JsonInclude(Include.NON_NULL) Instant finishedAt) {
}

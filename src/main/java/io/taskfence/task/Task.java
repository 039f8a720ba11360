package io.taskfence.task;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A task as clients see it (DESIGN section 5, "Task JSON"); {@code owner} is the submitting key's name. */
public record Task(
        UUID id,
        String type,
        ObjectNode payload,
        TaskStatus status,
        int attempt,
        int maxAttempts,
        int priority,
        Instant runAt,
        Instant deadline,
        Instant createdAt,
        Instant updatedAt,
        String lastError,
        JsonNode result,
        String owner) {
}

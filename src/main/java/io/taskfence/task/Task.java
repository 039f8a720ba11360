package io.taskfence.task;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A task as clients see it (DESIGN.md, "REST API", "Task JSON"); {@code owner} is the submitting key's name,
 * {@code concurrencyKey} its concurrency group's key (null for none). A listing
 * leaves {@code payload} and {@code result} null unless asked for them, and its JSON then leaves them out; a task
 * that has no result has {@link com.fasterxml.jackson.databind.node.NullNode} there, shown as null.
 */
public record Task(
        UUID id,
        String type,
        @JsonInclude(Include.NON_NULL) ObjectNode payload,
        TaskStatus status,
        int attempt,
        int maxAttempts,
        int priority,
        Instant runAt,
        Instant deadline,
        Instant createdAt,
        Instant updatedAt,
        String lastError,
        @JsonInclude(Include.NON_NULL) JsonNode result,
        String owner,
        String concurrencyKey) {
}

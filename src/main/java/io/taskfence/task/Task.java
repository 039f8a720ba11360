package io.taskfence.task;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A task as clients see it (DESIGN.md, "REST API", "Task JSON"); {@code owner} is the submitting key's name,
 * {@code concurrencyKey} its concurrency group's key (null for none), {@code dependsOn} the tasks it waits for (shown by
 * a submission's answer and by a read of the one task; empty, and left out of the JSON, elsewhere), {@code batchId}
 * the batch it is an item of, {@code callback} where its ends are told ({@code {"url", "maxAttempts"}}; both null,
 * left out, for none), {@code timeout} the time-out of each of its attempts ({@code <n>s} or {@code <n>ms}: its own,
 * capped at its type's; null, left out, for none), {@code progress} the latest progress its attempt reported and
 * {@code progressAt} when (null, left out, for none). A listing
 * leaves {@code payload} and {@code result} null unless asked for them, and its JSON then leaves them out; a task
 * that has no result has {@link com.fasterxml.jackson.databind.node.NullNode} there, shown as null.
 */
@Schema(requiredProperties = { "id", "type", "status", "attempt", "maxAttempts", "priority", "runAt", "deadline",
        "createdAt", "updatedAt", "lastError", "owner", "concurrencyKey" })
public record Task(
        UUID id,
        String type,
        @JsonInclude(Include.NON_NULL) ObjectNode payload,
        TaskStatus status,
        int attempt,
        int maxAttempts,
        int priority,
        Instant runAt,
        @Schema(nullable = true) Instant deadline,
        Instant createdAt,
        Instant updatedAt,
        @Schema(nullable = true) String lastError,
        @JsonInclude(Include.NON_NULL) JsonNode result,
        @Schema(nullable = true) String owner,
        @Schema(nullable = true) String concurrencyKey,
        @JsonInclude(Include.NON_EMPTY) List<UUID> dependsOn,
        @JsonInclude(Include.NON_NULL) UUID batchId,
        @JsonInclude(Include.NON_NULL) ObjectNode callback,
        @JsonInclude(Include.NON_NULL) @Schema(description = "how long each attempt may take: the task's own timeout, "
                + "capped at its type's (taskfence.types.<type>.timeout); absent for none", examples = "30s")
        String timeout,
        @JsonInclude(Include.NON_NULL) @Schema(description = "the latest progress its running attempt reported (a JSON "
                + "object of at most 4 KiB, e.g. {\"done\": 40, \"total\": 100}); absent until one reports, cleared by "
                + "the next attempt's claim") ObjectNode progress,
        @JsonInclude(Include.NON_NULL) @Schema(description = "when progress was written; absent with it")
        Instant progressAt) {

    /** This task, showing the tasks it waits for (or waited for). */
    public Task dependingOn(List<UUID> dependencies) {
        return new Task(id, type, payload, status, attempt, maxAttempts, priority, runAt, deadline, createdAt, updatedAt,
                lastError, result, owner, concurrencyKey, List.copyOf(dependencies), batchId, callback, timeout, progress,
                progressAt);
    }
}

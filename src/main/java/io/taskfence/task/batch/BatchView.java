package io.taskfence.task.batch;

import java.time.Instant;
import java.util.UUID;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;

import io.taskfence.task.TaskStatus;

/**
 * A batch as clients see it (DESIGN.md, "Batches"): its tasks ({@code items}), how many of them have ended in each
 * way and how many have not ({@code unfinished}), and its then task. {@code status} is OPEN while tasks may join it,
 * CLOSED once they may not and until its then task is released, then COMPLETE. {@code thenStatus} is null once
 * retention has deleted the then task.
 */
@Schema(requiredProperties = { "id", "status", "items", "succeeded", "dead", "cancelled", "unfinished", "thenTaskId",
        "owner", "createdAt" })
public record BatchView(
        UUID id,
        Status status,
        int items,
        int succeeded,
        int dead,
        int cancelled,
        int unfinished,
        UUID thenTaskId,
        @JsonInclude(Include.NON_NULL) TaskStatus thenStatus,
        @Schema(nullable = true) String owner,
        Instant createdAt,
        @JsonInclude(Include.NON_NULL) Instant closedAt,
        @JsonInclude(Include.NON_NULL) Instant completedAt) {

    public enum Status { OPEN, CLOSED, COMPLETE }
}

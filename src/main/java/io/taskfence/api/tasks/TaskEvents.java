package io.taskfence.api.tasks;

import java.util.List;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.taskfence.task.TaskEvent;
import io.taskfence.task.TaskHistory;

/** The answer of {@code GET /api/v1/tasks/{id}/events}: the task's history, oldest first. */
@Schema(name = "TaskEvents", requiredProperties = "items")
public record TaskEvents(
        @Schema(description = "the task's committed status changes, oldest first; the newest "
                + TaskHistory.MAX_EVENTS + " when it has more") List<TaskEvent> items) {
}

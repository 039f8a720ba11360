package io.taskfence.task;

import java.util.List;
import java.util.UUID;

/**
 * CDI event: these tasks' progress reports were written, committed. Whoever waits for one of them with
 * {@code progressAfter} ({@code GET /tasks/{id}?wait=}, on any replica) answers now.
 */
public record TasksProgressed(List<UUID> taskIds) {

    public TasksProgressed {
        taskIds = List.copyOf(taskIds);
    }
}

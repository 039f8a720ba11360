package io.taskfence.task;

import java.util.List;
import java.util.UUID;

/**
 * CDI event: these tasks reached an end (SUCCEEDED, DEAD or CANCELLED), committed. Whoever waits for one of them
 * ({@code GET /tasks/{id}?wait=}, on any replica) answers now instead of at the end of its wait.
 */
public record TasksEnded(List<UUID> taskIds) {

    public TasksEnded {
        taskIds = List.copyOf(taskIds);
    }
}

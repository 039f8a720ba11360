package io.taskfence.task;

import java.util.List;
import java.util.UUID;

/**
 * CDI event: these tasks reached an end (SUCCEEDED, DEAD or CANCELLED), committed. Whoever waits for one of them
 * ({@code GET /tasks/{id}?wait=}, on any replica) answers now instead of at the end of its wait. {@code followUps}:
 * whether one of them may have left work for the follow-ups job (it has dependents or a callback); false only where
 * the ending statement read that it has not.
 */
public record TasksEnded(List<UUID> taskIds, boolean followUps) {

    public TasksEnded {
        taskIds = List.copyOf(taskIds);
    }

    /** Tasks that may have left follow-ups. */
    public TasksEnded(List<UUID> taskIds) {
        this(taskIds, true);
    }
}

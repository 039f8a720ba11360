package io.taskfence.task.action;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

import io.taskfence.task.TaskStatus;

/** What a bulk action does to the tasks it matches, and the statuses it may move them from. */
public enum BulkAction {

    CANCEL(EnumSet.of(TaskStatus.WAITING, TaskStatus.PENDING, TaskStatus.ENQUEUED, TaskStatus.PROCESSING,
            TaskStatus.FAILED)),
    RETRY(EnumSet.of(TaskStatus.DEAD, TaskStatus.CANCELLED));

    private final Set<TaskStatus> from;

    BulkAction(Set<TaskStatus> from) {
        this.from = Set.copyOf(from);
    }

    public Set<TaskStatus> from() {
        return from;
    }

    /** Its name in paths and JSON: {@code cancel}, {@code retry}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}

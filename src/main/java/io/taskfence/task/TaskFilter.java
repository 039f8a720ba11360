package io.taskfence.task;

import java.util.UUID;

/**
 * Which tasks a listing shows, within the reader's {@link TaskScope}: each field that is not null narrows it to the
 * tasks of one owner (an API key's name), status, type or batch.
 */
public record TaskFilter(String owner, TaskStatus status, String type, UUID batch) {

    public static final TaskFilter ALL = new TaskFilter(null, null, null, null);
}

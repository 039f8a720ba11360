package io.taskfence.task.query;

import java.util.List;
import io.taskfence.task.Task;

/** One page of a listing, newest first; {@code next} is the cursor of the page after it, or null at the end. */
public record TaskPage(List<Task> items, String next) {
}

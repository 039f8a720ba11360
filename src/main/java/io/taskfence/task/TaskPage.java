package io.taskfence.task;

import java.util.List;

/** One page of a listing, newest first; {@code next} is the cursor of the page after it, or null at the end. */
public record TaskPage(List<Task> items, String next) {
}

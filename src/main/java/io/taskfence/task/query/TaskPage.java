package io.taskfence.task.query;

import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import io.taskfence.task.Task;

/** One page of a listing, newest first; {@code next} is the cursor of the page after it, or null at the end. */
@Schema(requiredProperties = { "items", "next" })
public record TaskPage(List<Task> items, @Schema(nullable = true) String next) {
}

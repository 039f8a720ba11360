package io.taskfence.task.submit.outcome;

import io.taskfence.task.Task;

/** The task a submission made, or the one an earlier submission with the same idempotency key made. */
public record Submission(Task task, boolean created) implements Submitted {
}

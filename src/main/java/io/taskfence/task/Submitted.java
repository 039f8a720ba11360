package io.taskfence.task;

/**
 * What one task of a batch came to ({@link TaskTransitions#submitAll}): a {@link Submission} (created, or
 * the task its idempotency key already names) or a {@link ReusedKey} (that key names a different request).
 */
public sealed interface Submitted permits Submission, ReusedKey {
}

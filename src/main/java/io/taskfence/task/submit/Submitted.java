package io.taskfence.task.submit;

/**
 * What one task of a batch came to ({@link Submissions#submitAll}): a {@link Submission} (created, or
 * the task its idempotency key already names) a {@link ReusedKey} (that key names a different request) or {@link OverQuota} (not stored).
 */
public sealed interface Submitted permits Submission, ReusedKey, OverQuota {
}

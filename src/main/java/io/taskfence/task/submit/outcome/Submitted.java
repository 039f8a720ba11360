package io.taskfence.task.submit.outcome;

/**
 * What one task of a batch came to ({@code Submissions.submitAll}): a {@link Submission} (created, or
 * the task its idempotency key already names), a {@link ReusedKey} (that key names a different request), an
 * {@link OverQuota}, an {@link UnmetDependency} or a {@link TypeTakenBack} (not stored).
 */
public sealed interface Submitted permits Submission, ReusedKey, OverQuota, UnmetDependency, TypeTakenBack {
}

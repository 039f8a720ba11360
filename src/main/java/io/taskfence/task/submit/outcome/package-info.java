/**
 * What a submission comes to, task by task (Submitted: a Submission, or refused as ReusedKey, OverQuota or
 * UnmetDependency), for a batch (SubmittedBatch) or a schedule's occurrences (OccurrenceTasks), and the exceptions a
 * single submission's refusal becomes.
 *
 * <p>May import task.
 */
package io.taskfence.task.submit.outcome;

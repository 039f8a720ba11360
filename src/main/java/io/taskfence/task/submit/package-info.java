/**
 * New tasks: TaskInserts holds the one statement that inserts task rows, used by Submissions (single, grouped, bulk,
 * batches), JobSubmissions (schedule occurrences, callback tasks) and BatchMembership (a batch's then task); with
 * idempotency keys, owner quotas (Quotas), and Retries (a task submitted again).
 *
 * <p>May import keys, store, task, task.dependency, task.submit.outcome, task.transition (its meters) and types (the declared types a submission holds).
 */
package io.taskfence.task.submit;

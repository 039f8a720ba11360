/**
 * Client → PENDING: Submissions is the one writer of new task rows (single, grouped, batch and schedule
 * occurrences), with idempotency keys and owner quotas.
 *
 * <p>May import task, task.transition (its meters) and store.
 */
package io.taskfence.task.submit;

/**
 * Client → PENDING: Submissions is the one writer of new task rows (single, grouped, batch and schedule occurrences),
 * with idempotency keys and owner quotas.
 *
 * <p>May import store, task, task.dependency, task.submit.outcome and task.transition (its meters).
 */
package io.taskfence.task.submit;

/**
 * Bulk actions (DESIGN.md, "Bulk actions"): cancel or retry every task a filter matches, asked for once and done in
 * bounded batches by the fenced actions job, whose progress can be read. The moves themselves are task.transition's
 * (cancel) and task.submit's (retry, held to the quota).
 *
 * <p>May import store, task, task.query, task.submit and task.transition.
 */
package io.taskfence.task.action;

/**
 * The reads of tasks as clients ask for them: TaskQueries (one task, the listing and the capped count, TaskCount, by
 * TaskFilter, paged by TaskPage's cursor; InvalidCursorException for a cursor it did not write), and the claims each remote
 * worker holds (ClaimsInHand).
 *
 * <p>May import store and task.
 */
package io.taskfence.task.query;

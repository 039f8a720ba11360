/**
 * /api/v1/tasks (TaskResource): submit one task (SubmitRequest) or up to 1,000 in a bulk submission ({@code POST
 * /tasks/batch}: BulkRequest, BulkTask, BulkAnswer, BulkSubmissions; the dependencies between its tasks in
 * ItemDependencies and ItemCycles), read one, waiting for its end or progress if asked (TaskWaits), and its history; list and
 * count (FilterParams, and a page's PageParams); cancel and retry. NewTasks makes a request into the task to store.
 *
 * <p>May import api, api.auth, api.problem, handlers, lock, signals, task, task.action, task.batch, task.dependency,
 * task.query, task.submit, task.submit.outcome, task.transition and tracing.
 */
package io.taskfence.api.tasks;

/**
 * Bulk actions (DESIGN.md, "Bulk actions"): {@code POST /api/v1/tasks/actions/cancel} and {@code .../retry}
 * (TaskActionResource) start one over the tasks the listing's filters match; {@code GET /api/v1/actions/{id}}
 * (ActionProgressResource) reads its progress.
 *
 * <p>May import api, api.auth, api.problem, api.tasks and task.action.
 */
package io.taskfence.api.actions;

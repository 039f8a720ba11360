/**
 * /api/v1/schedules (ScheduleResource): recurring schedules, for admin keys, each checked whole before it is stored,
 * its task's type and payload as a submission's are (api.SubmissionChecks).
 *
 * <p>May import api, api.auth, api.problem, schedule, task (a timeout written as tasks show theirs) and task.submit (the
 * dedupe a schedule's tasks are submitted with).
 */
package io.taskfence.api.schedules;

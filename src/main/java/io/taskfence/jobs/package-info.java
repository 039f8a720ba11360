/**
 * Every leader-only job, one file each: Dispatcher, Recovery, Retention, ScheduleOccurrences, BatchCompletion,
 * BulkActions, FollowUpJob, HistoryJob; FencedJobs runs each under its lock (JobLocks) and hands it its FenceToken;
 * FenceRepair handles a refused token; DueNotifications wakes the dispatcher when others insert tasks;
 * DispatchDisabled turns them all off on a replica.
 *
 * <p>May import audit, history, lock, queue, schedule, store, task, task.action, task.batch, task.followup, task.query,
 * task.submit.outcome, task.transition and types. Only the edge rooms import it.
 */
package io.taskfence.jobs;

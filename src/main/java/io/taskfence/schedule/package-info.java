/**
 * Cron schedules: their table, cron parsing, and the plan of occurrences due (misfires). Occurrences become tasks
 * through task.submit.
 *
 * <p>May import store, task.submit and task.submit.outcome.
 */
package io.taskfence.schedule;

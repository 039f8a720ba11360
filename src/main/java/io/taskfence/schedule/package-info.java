/**
 * Cron schedules: their table, cron parsing, and the plan of occurrences due (misfires). Occurrences become tasks
 * through task.submit.
 *
 * <p>May import store and task.submit.
 */
package io.taskfence.schedule;

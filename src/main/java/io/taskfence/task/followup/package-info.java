/**
 * Follow-ups (DESIGN.md, "Follow-ups"): what a task's end leaves for other tasks, appended to task_follow_ups by the
 * ending statement's trigger and done by the follow-ups job in fenced, bounded transactions (FollowUps, the one seam to
 * that table): the dependents' release or cancel (task.dependency) and the callback tasks (task.submit).
 *
 * <p>May import store, task, task.dependency, task.submit and task.transition (its meters).
 */
package io.taskfence.task.followup;

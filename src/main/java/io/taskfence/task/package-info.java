/**
 * The task model (Task, TaskStatus, TaskEvent, TaskScope...), the reading of task rows (TaskRows) and of a task's
 * history (TaskHistory), retention's deletes (FinishedTasks), and the events other rooms observe (TasksBecameDue,
 * TasksEnded, TaskCancelled). Only io.taskfence.task and its sub-packages write task rows, each writer with the moves
 * the writers' table gives it (ArchitectureTest).
 *
 * <p>May import store.
 */
package io.taskfence.task;

/**
 * The task model (Task, TaskStatus, TaskEvent, TaskScope...), the reads of tasks and their history, retention's
 * deletes, and the events other rooms observe (TasksBecameDue, TaskCancelled). Only io.taskfence.task and its
 * sub-packages write tasks.status (ArchitectureTest).
 *
 * <p>May import store.
 */
package io.taskfence.task;

package io.taskfence.task;

/**
 * CDI event: tasks were stored or a type was resumed, so there may be due tasks to dispatch now rather than at the
 * dispatcher's next tick. Fired after the change committed.
 */
public record TasksBecameDue() {
}

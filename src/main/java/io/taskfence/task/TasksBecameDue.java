package io.taskfence.task;

/**
 * CDI event: there may be due tasks to dispatch now rather than at the dispatcher's next tick — tasks were stored, a
 * type was resumed, or a task of a concurrency-limited type ended. Fired after the change committed.
 */
public record TasksBecameDue() {
}

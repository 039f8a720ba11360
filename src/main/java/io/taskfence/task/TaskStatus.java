package io.taskfence.task;

/** The states of DESIGN.md, "Task lifecycle"; their names are what the {@code status} column holds. */
public enum TaskStatus {
    PENDING, ENQUEUED, PROCESSING, SUCCEEDED, FAILED, DEAD, CANCELLED
}

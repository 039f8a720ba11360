package io.taskfence.task;

/** The states of DESIGN.md, "Task lifecycle"; their names are what the {@code status} column holds. */
public enum TaskStatus {
    WAITING, PENDING, ENQUEUED, PROCESSING, SUCCEEDED, FAILED, DEAD, CANCELLED;

    /** Whether the task has ended here: nothing moves it on unless someone retries it. */
    public boolean ended() {
        return this == SUCCEEDED || this == DEAD || this == CANCELLED;
    }
}

package io.taskfence.client;

/** Thrown by a handler when no retry can succeed: the task is DEAD at once. */
public final class PermanentFailure extends Exception {

    public PermanentFailure(String message) {
        super(message);
    }
}

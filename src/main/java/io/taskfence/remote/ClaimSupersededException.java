package io.taskfence.remote;

/**
 * A remote worker's write named a claim that no longer holds its task: the task was cancelled, finished, or
 * recovered after the claim's lease ran out (and perhaps claimed again). Nothing was written; the worker should stop.
 */
public final class ClaimSupersededException extends RuntimeException {

    public ClaimSupersededException(String reason) {
        super(reason);
    }
}

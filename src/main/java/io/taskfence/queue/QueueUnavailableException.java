package io.taskfence.queue;

/**
 * Redis did not answer a queue operation (unreachable, timed out, failed over mid-call). What it did is unknown
 * to the caller: a push may or may not be in the stream. The table stays the truth either way: recovery returns
 * ENQUEUED tasks without a message to PENDING.
 */
public final class QueueUnavailableException extends RuntimeException {

    QueueUnavailableException(String operation, RuntimeException cause) {
        super("Redis did not complete " + operation + ": "
                + (cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName()), cause);
    }
}

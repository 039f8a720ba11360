package io.taskfence.lock;

/**
 * Redis did not answer a lock operation (unreachable, timed out, or failed). The lock's state is
 * unknown to the caller: an acquire must be treated as not acquired, a renew as not renewed.
 */
public final class LockUnavailableException extends RuntimeException {

    LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

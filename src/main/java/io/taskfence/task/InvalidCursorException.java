package io.taskfence.task;

/** A listing's {@code after} cursor was not one this service made. */
public final class InvalidCursorException extends RuntimeException {

    InvalidCursorException(String cursor) {
        super("'after' is not a cursor from an earlier page's 'next': " + cursor);
    }
}

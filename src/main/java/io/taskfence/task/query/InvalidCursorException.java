package io.taskfence.task.query;

/** A listing's {@code after} cursor was not one this service made. */
public final class InvalidCursorException extends RuntimeException {

    InvalidCursorException(String cursor) {
        super("must be the 'next' of an earlier page; '" + cursor + "' is not a cursor this service made");
    }
}

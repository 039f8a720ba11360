package io.taskfence.schedule;

/** A cron expression cron-utils cannot read in its dialect, or one that never fires. */
public final class InvalidCronException extends IllegalArgumentException {

    InvalidCronException(String message) {
        super(message);
    }
}

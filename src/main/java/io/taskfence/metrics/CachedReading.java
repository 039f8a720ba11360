package io.taskfence.metrics;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

/**
 * A value read from a server on demand, at most once per {@code maxAge}: scrapes of every replica then
 * cost the server one query per period, not one per gauge and scrape. When a read fails (the server is
 * down) the last value stays, and the next try waits for the next period too.
 */
final class CachedReading<T> {

    private static final Logger LOG = Logger.getLogger(CachedReading.class);

    private final String what;
    private final Supplier<T> read;
    private final long maxAgeNanos;
    private final LongSupplier nanoTime;
    // Guarded by this: scrapes may come on several threads at once.
    private T value;
    private long triedAt;
    private boolean tried;

    CachedReading(String what, Supplier<T> read, Duration maxAge) {
        this(what, read, maxAge, System::nanoTime);
    }

    /** With the clock that measures the value's age (this replica's monotonic clock, or a test's). */
    CachedReading(String what, Supplier<T> read, Duration maxAge, LongSupplier nanoTime) {
        this.what = what;
        this.read = read;
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoTime = nanoTime;
    }

    /** The value, read again first if it is older than the maximum age; empty until a read has succeeded. */
    synchronized Optional<T> get() {
        long now = nanoTime.getAsLong();
        if (!tried || now - triedAt >= maxAgeNanos) {
            tried = true;
            triedAt = now;
            try {
                value = read.get();
            } catch (RuntimeException e) {
                LOG.debugf("could not read %s, keeping the last values: %s", what, e.toString());
            }
        }
        return Optional.ofNullable(value);
    }
}

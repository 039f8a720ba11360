package io.taskfence.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The gauges' cache: one read per period however often it is asked, and the last value while the server is down. */
class CachedReadingTest {

    private final AtomicLong clock = new AtomicLong();
    private final AtomicInteger reads = new AtomicInteger();
    private volatile boolean serverDown;

    private final CachedReading<Integer> reading = new CachedReading<>("a test value", () -> {
        reads.incrementAndGet();
        if (serverDown) {
            throw new IllegalStateException("connection refused");
        }
        return reads.get();
    }, Duration.ofSeconds(5), clock::get);

    @Test
    void readsAtMostOncePerPeriod() {
        assertEquals(Optional.of(1), reading.get());
        clock.addAndGet(Duration.ofSeconds(4).toNanos());
        assertEquals(Optional.of(1), reading.get());
        assertEquals(1, reads.get());
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        assertEquals(Optional.of(2), reading.get());
    }

    @Test
    void keepsTheLastValueWhileTheServerIsDownAndTriesAgainAPeriodLater() {
        assertEquals(Optional.of(1), reading.get());
        serverDown = true;
        clock.addAndGet(Duration.ofSeconds(5).toNanos());
        assertEquals(Optional.of(1), reading.get());
        assertEquals(Optional.of(1), reading.get(), "no new try within the period");
        assertEquals(2, reads.get());
        serverDown = false;
        clock.addAndGet(Duration.ofSeconds(5).toNanos());
        assertEquals(Optional.of(3), reading.get());
    }

    @Test
    void isEmptyUntilAReadSucceeds() {
        serverDown = true;
        assertEquals(Optional.empty(), reading.get());
    }
}

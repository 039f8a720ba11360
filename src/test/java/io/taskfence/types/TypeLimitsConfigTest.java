package io.taskfence.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.taskfence.TaskfenceConfig;

/** {@code taskfence.types.*} is checked at start-up: a mistake stops the replica, named, instead of going unenforced. */
class TypeLimitsConfigTest {

    private static final Set<String> REGISTERED = Set.of("noop", "http", "sleep");

    @Test
    void readsConcurrencyAndRatesPerSecondAndPerMinute() {
        Map<String, TypeLimit> limits = TypeLimits.read(Map.of("sleep", type(2, null), "http", type(null, "600/m"),
                "noop", type(null, " 10/s "), "flaky", type(null, null)), Set.of("noop", "http", "sleep", "flaky"));
        assertEquals(OptionalInt.of(2), limits.get("sleep").maxConcurrency());
        assertEquals(Optional.of(new Rate(600, Duration.ofMinutes(1))), limits.get("http").rate());
        assertEquals("10/s", limits.get("noop").rate().orElseThrow().toString());
        assertEquals(Set.of("sleep", "http", "noop"), limits.keySet(), "a type named without a limit has none");
    }

    @Test
    void anUnknownTypeStopsTheStartNamingIt() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> TypeLimits.read(Map.of("noop", type(1, null), "slep", type(2, null)), REGISTERED));
        assertEquals("taskfence.types.slep: there is no handler for task type 'slep' and it is not remote (the types are "
                + REGISTERED + ")", refused.getMessage());
    }

    @Test
    void aMalformedRateOrAConcurrencyBelowOneStopsTheStart() {
        for (String rate : new String[] { "10", "10/h", "0/s", "-1/s", "ten/s", "10 /s", "1.5/s", "" }) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> TypeLimits.read(Map.of("noop", type(null, rate)), REGISTERED), rate);
            assertEquals("taskfence.types.noop.rate: '" + rate + "' is not a rate: write <n>/s or <n>/m with n from 1, "
                    + "e.g. 10/s or 600/m", refused.getMessage());
        }
        IllegalStateException zero = assertThrows(IllegalStateException.class,
                () -> TypeLimits.read(Map.of("noop", type(0, null)), REGISTERED));
        assertTrue(zero.getMessage().startsWith("taskfence.types.noop.max-concurrency is 0: it must be at least 1"),
                zero.getMessage());
    }

    @Test
    void readsMaxPerKeyAndRefusesOneBelowOne() {
        Map<String, TypeLimit> limits = TypeLimits.read(Map.of("sleep", type(null, null, 1)), REGISTERED);
        assertEquals(OptionalInt.of(1), limits.get("sleep").maxPerKey());
        assertTrue(limits.get("sleep").boundsRunning(), "a finished task of a group makes room for the next");
        IllegalStateException zero = assertThrows(IllegalStateException.class,
                () -> TypeLimits.read(Map.of("noop", type(null, null, 0)), REGISTERED));
        assertTrue(zero.getMessage().startsWith("taskfence.types.noop.max-per-key is 0: it must be at least 1"),
                zero.getMessage());
    }

    private static TaskfenceConfig.Type type(Integer maxConcurrency, String rate) {
        return type(maxConcurrency, rate, null);
    }

    @Test
    void readsRatePerKeyAndStopsTheStartOnAMalformedOne() {
        Map<String, TypeLimit> limits = TypeLimits.read(Map.of("sleep", perKeyRate("5/s")), REGISTERED);
        assertEquals(Optional.of(new Rate(5, Duration.ofSeconds(1))), limits.get("sleep").ratePerKey());
        assertTrue(limits.get("sleep").grouped(), "dispatch takes its tasks group by group");
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> TypeLimits.read(Map.of("noop", perKeyRate("5/h")), REGISTERED));
        assertEquals("taskfence.types.noop.rate-per-key: '5/h' is not a rate: write <n>/s or <n>/m with n from 1, "
                + "e.g. 10/s or 600/m", refused.getMessage());
    }

    @Test
    void aRemoteTypeNeedsATypesNameAndNoHandlerHere() {
        assertEquals(Set.of("resize"), RemoteTypes.read(Map.of("resize", remote(), "noop", type(1, null)), REGISTERED));
        IllegalStateException handled = assertThrows(IllegalStateException.class,
                () -> RemoteTypes.read(Map.of("noop", remote()), REGISTERED));
        assertTrue(handled.getMessage().startsWith("taskfence.types.noop.remote: a handler of this service runs 'noop'"),
                handled.getMessage());
        IllegalStateException name = assertThrows(IllegalStateException.class,
                () -> RemoteTypes.read(Map.of("Resize", remote()), REGISTERED));
        assertTrue(name.getMessage().contains("'Resize' is no task type name"), name.getMessage());
    }

    private static TaskfenceConfig.Type remote() {
        return type(null, null, null, true);
    }

    private static TaskfenceConfig.Type type(Integer maxConcurrency, String rate, Integer maxPerKey) {
        return type(maxConcurrency, rate, maxPerKey, false);
    }

    @Test
    void readsTimeoutsAndCapsATasksOwnAtItsTypesAndRefusesOneOutOfBounds() {
        assertEquals(Map.of("sleep", Duration.ofSeconds(1)), TypeLimits.timeouts(Map.of("sleep",
                timed(Duration.ofSeconds(1)), "noop", type(1, null))));
        IllegalStateException tiny = assertThrows(IllegalStateException.class,
                () -> TypeLimits.timeouts(Map.of("noop", timed(Duration.ofNanos(999_999)))));
        assertEquals("taskfence.types.noop.timeout is PT0.000999999S: it must be at least 1ms and at most 999999999s",
                tiny.getMessage());
        // Past it a timer's nanoseconds overflow, and PostgreSQL's timestamps soon after.
        IllegalStateException huge = assertThrows(IllegalStateException.class,
                () -> TypeLimits.timeouts(Map.of("noop", timed(Duration.ofDays(400_000_000L)))));
        assertEquals("taskfence.types.noop.timeout is PT9600000000H: it must be at least 1ms and at most 999999999s",
                huge.getMessage());
    }

    private static TaskfenceConfig.Type timed(Duration timeout) {
        return type(null, null, null, false, timeout, null);
    }

    private static TaskfenceConfig.Type perKeyRate(String ratePerKey) {
        return type(null, null, null, false, null, ratePerKey);
    }

    private static TaskfenceConfig.Type type(Integer maxConcurrency, String rate, Integer maxPerKey, boolean remote) {
        return type(maxConcurrency, rate, maxPerKey, remote, null, null);
    }

    private static TaskfenceConfig.Type type(Integer maxConcurrency, String rate, Integer maxPerKey, boolean remote,
            Duration timeout, String ratePerKey) {
        return new TaskfenceConfig.Type() {
            @Override
            public Optional<String> ratePerKey() {
                return Optional.ofNullable(ratePerKey);
            }

            @Override
            public Optional<Duration> timeout() {
                return Optional.ofNullable(timeout);
            }

            @Override
            public boolean remote() {
                return remote;
            }

            @Override
            public Optional<String> schema() {
                return Optional.empty();
            }

            @Override
            public Optional<String> schemaFile() {
                return Optional.empty();
            }

            @Override
            public OptionalInt maxPerKey() {
                return maxPerKey == null ? OptionalInt.empty() : OptionalInt.of(maxPerKey);
            }

            @Override
            public OptionalInt maxConcurrency() {
                return maxConcurrency == null ? OptionalInt.empty() : OptionalInt.of(maxConcurrency);
            }

            @Override
            public Optional<String> rate() {
                return Optional.ofNullable(rate);
            }
        };
    }
}

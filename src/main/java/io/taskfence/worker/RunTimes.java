package io.taskfence.worker;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * {@code taskfence.task.run}: how long handlers ran, by task type and outcome. Each timer is built once;
 * building one per run cost more than running a {@code noop} task.
 */
final class RunTimes {

    private record Key(String type, String outcome) {
    }

    private final MeterRegistry registry;
    private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

    RunTimes(MeterRegistry registry) {
        this.registry = registry;
    }

    void record(String type, String outcome, long nanos) {
        timers.computeIfAbsent(new Key(type, outcome), key -> Timer.builder("taskfence.task.run")
                .description("How long handlers ran, by task type and outcome")
                .tags("type", key.type(), "outcome", key.outcome())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(30))
                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }
}

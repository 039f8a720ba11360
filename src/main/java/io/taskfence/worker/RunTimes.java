package io.taskfence.worker;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.taskfence.handlers.TaskOutcome;

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

    /** The outcome's name, as the timer's tag and the attempt's span give it. */
    static String outcomeName(TaskOutcome outcome) {
        return switch (outcome) {
            case TaskOutcome.Success success -> "success";
            case TaskOutcome.Failure failure -> "failure";
            case TaskOutcome.PermanentFailure failure -> "permanent_failure";
            case TaskOutcome.Later later -> "later";
        };
    }

    /** The outcome's error, for the attempt's span; null for a success or a "later". */
    static String errorOf(TaskOutcome outcome) {
        return switch (outcome) {
            case TaskOutcome.Failure failure -> failure.error();
            case TaskOutcome.PermanentFailure failure -> failure.error();
            case TaskOutcome.Success success -> null;
            case TaskOutcome.Later later -> null;
        };
    }
}

package io.taskfence.task.transition;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.types.RemoteTypes;
import io.taskfence.task.TaskStatus;

/**
 * What the transitions tell the metrics: {@code taskfence.transitions} (tags {@code to},
 * {@code type}) for each status change that committed, and {@code taskfence.task.wait} (tag
 * {@code type}), the time from submission to a first attempt's claim as PostgreSQL measured it, and
 * {@code taskfence.task.cancelled.running} (tag {@code type}), the cancels that stopped a running task.
 */
@Singleton
public final class TransitionMeters {

    /** One row that changed status: where it went and the task's type. */
    public record Moved(TaskStatus to, String type) {
    }

    private final MeterRegistry registry;
    // Built once per status and type, or per type: a registry look-up on every transition costs more than the update.
    private final Map<Moved, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> waits = new ConcurrentHashMap<>();
    private final Map<String, Counter> runningCancels = new ConcurrentHashMap<>();

    TransitionMeters(MeterRegistry registry, TaskHandlers handlers, RemoteTypes remote) {
        this.registry = registry;
        // Every status of every type at zero from the start: a counter first seen at 1 (the first DEAD task
        // of a type, say) is an increase that Prometheus's increase() and the alerts built on it miss.
        for (String type : Stream.concat(handlers.types().stream(), remote.names().stream()).toList()) {
            for (TaskStatus to : TaskStatus.values()) {
                counter(to, type);
            }
            runningCancels(type);
        }
    }

    /** One status change that committed; also for tasks other packages create ({@code to} PENDING). */
    public void moved(TaskStatus to, String type) {
        counter(to, type).increment();
    }

    /** A batch that committed: one increment per status and type, however many rows it moved. */
    public void moved(Collection<Moved> batch) {
        Map<Moved, Long> counts = batch.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        counts.forEach((moved, count) -> counter(moved.to(), moved.type()).increment(count));
    }

    /** A PROCESSING task was cancelled (also counted as a move to CANCELLED): its worker is to stop the handler. */
    public void cancelledWhileRunning(String type) {
        runningCancels(type).increment();
    }

    private Counter runningCancels(String type) {
        return runningCancels.computeIfAbsent(type, forType -> Counter.builder("taskfence.task.cancelled.running")
                .description("Tasks cancelled while PROCESSING, whose handlers their workers interrupt")
                .tag("type", forType)
                .register(registry));
    }

    public void waited(String type, Duration sinceSubmission) {
        waits.computeIfAbsent(type, forType -> Timer.builder("taskfence.task.wait")
                .description("From submission to the claim of the task's first attempt, by PostgreSQL's clock")
                .tag("type", forType)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofHours(1))
                .register(registry))
                .record(sinceSubmission);
    }

    private Counter counter(TaskStatus to, String type) {
        return counters.computeIfAbsent(new Moved(to, type),
                moved -> registry.counter("taskfence.transitions", "to", to.name(), "type", type));
    }
}

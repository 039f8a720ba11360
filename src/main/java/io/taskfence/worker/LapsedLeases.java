package io.taskfence.worker;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code taskfence.task.lease.lapsed}: attempts given up because their processing lease ran out by this
 * replica's clock while PostgreSQL confirmed no heartbeat, by task type and by whether the handler was
 * {@code running} (it was interrupted) or the claim was still {@code waiting} for a worker (it never ran).
 */
final class LapsedLeases {

    private record Key(String type, String stage) {
    }

    private final MeterRegistry registry;
    private final Map<Key, Counter> counters = new ConcurrentHashMap<>();

    /** Registers every type's counters at zero: a counter first seen at 1 is an increase Prometheus misses. */
    LapsedLeases(MeterRegistry registry, Collection<String> types) {
        this.registry = registry;
        for (String type : types) {
            counter(type, true);
            counter(type, false);
        }
    }

    void count(String type, boolean running) {
        counter(type, running).increment();
    }

    private Counter counter(String type, boolean running) {
        return counters.computeIfAbsent(new Key(type, running ? "running" : "waiting"), key -> Counter
                .builder("taskfence.task.lease.lapsed")
                .description("Attempts given up because their processing lease ran out while heartbeats failed")
                .tags("type", key.type(), "stage", key.stage())
                .register(registry));
    }
}

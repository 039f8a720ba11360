package io.taskfence.worker;

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

    LapsedLeases(MeterRegistry registry) {
        this.registry = registry;
    }

    void count(String type, boolean running) {
        counters.computeIfAbsent(new Key(type, running ? "running" : "waiting"), key -> Counter
                .builder("taskfence.task.lease.lapsed")
                .description("Attempts given up because their processing lease ran out while heartbeats failed")
                .tags("type", key.type(), "stage", key.stage())
                .register(registry))
                .increment();
    }
}

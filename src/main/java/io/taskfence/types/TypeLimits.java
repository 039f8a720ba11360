package io.taskfence.types;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.runtime.Startup;
import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandlers;

/**
 * {@code taskfence.types.<type>.max-concurrency}, {@code .rate}, {@code .max-per-key}, {@code .rate-per-key} and
 * {@code .timeout}, read and checked at start-up: a type without a handler, a concurrency or max-per-key below 1, a
 * rate that does not parse or a time-out below a millisecond stops the replica there, named, rather than leaving a
 * limit silently unenforced. Dispatch holds the types to the first four
 * ({@link io.taskfence.task.transition.DispatchBatch#enqueueDue}); the time-out goes into each task of the type as it
 * is stored.
 */
@ApplicationScoped
@Startup
public class TypeLimits {

    private final Map<String, TypeLimit> byType;
    private final Map<String, Duration> timeouts;

    TypeLimits(TaskfenceConfig config, TaskHandlers handlers, RemoteTypes remote) {
        Set<String> registered = new TreeSet<>(handlers.types());
        registered.addAll(remote.names());
        this.byType = read(config.types(), registered);
        this.timeouts = timeouts(config.types());
    }

    /** The longest time-out a type may set: the longest a task may ask for ({@code <n>s}, nine digits). */
    static final Duration LONGEST_TIMEOUT = Duration.ofSeconds(999_999_999);

    /**
     * The attempt time-outs of the types that have one, by name.
     *
     * @throws IllegalStateException naming the first one below a millisecond (the time-outs' unit) or above
     *         {@link #LONGEST_TIMEOUT} (which every timer and PostgreSQL's timestamps can hold)
     */
    static Map<String, Duration> timeouts(Map<String, TaskfenceConfig.Type> settings) {
        Map<String, Duration> timeouts = new TreeMap<>();
        new TreeMap<>(settings).forEach((type, setting) -> setting.timeout().ifPresent(timeout -> {
            if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(LONGEST_TIMEOUT) > 0) {
                throw new IllegalStateException("taskfence.types." + type + ".timeout is " + timeout
                        + ": it must be at least 1ms and at most " + LONGEST_TIMEOUT.toSeconds() + "s");
            }
            timeouts.put(type, Duration.ofMillis(timeout.toMillis()));
        }));
        return Collections.unmodifiableMap(timeouts);
    }

    /**
     * The limits of the types that have any, by name.
     *
     * @throws IllegalStateException naming the first setting that names no registered type or is out of range
     */
    static Map<String, TypeLimit> read(Map<String, TaskfenceConfig.Type> settings, Set<String> registered) {
        Map<String, TypeLimit> byType = new TreeMap<>();
        for (Map.Entry<String, TaskfenceConfig.Type> entry : new TreeMap<>(settings).entrySet()) {
            String type = entry.getKey();
            String key = "taskfence.types." + type;
            if (!registered.contains(type)) {
                throw new IllegalStateException(key + ": there is no handler for task type '" + type
                        + "' and it is not remote (the types are " + registered + ")");
            }
            OptionalInt concurrency = entry.getValue().maxConcurrency();
            if (concurrency.isPresent() && concurrency.getAsInt() < 1) {
                throw new IllegalStateException(key + ".max-concurrency is " + concurrency.getAsInt()
                        + ": it must be at least 1 (pause the type to run none)");
            }
            OptionalInt perKey = entry.getValue().maxPerKey();
            if (perKey.isPresent() && perKey.getAsInt() < 1) {
                throw new IllegalStateException(key + ".max-per-key is " + perKey.getAsInt()
                        + ": it must be at least 1 (pause the type to run none)");
            }
            Optional<Rate> rate = rate(key + ".rate", entry.getValue().rate());
            Optional<Rate> ratePerKey = rate(key + ".rate-per-key", entry.getValue().ratePerKey());
            TypeLimit limit = new TypeLimit(type, concurrency, rate, perKey, ratePerKey);
            if (limit.limited()) {
                byType.put(type, limit);
            }
        }
        return Collections.unmodifiableMap(byType);
    }

    private static Optional<Rate> rate(String key, Optional<String> text) {
        try {
            return text.map(Rate::parse);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(key + ": " + e.getMessage(), e);
        }
    }

    /** The type's limits; {@link TypeLimit#none} for a type without any. */
    public TypeLimit of(String type) {
        return byType.getOrDefault(type, TypeLimit.none(type));
    }

    /**
     * The time-out of an attempt of a {@code type} task that asks for {@code asked} (null: none): the shorter of that
     * and the type's ({@code taskfence.types.<type>.timeout}); null when neither has one.
     */
    public Duration timeout(String type, Duration asked) {
        Duration typeTimeout = timeouts.get(type);
        if (asked == null || typeTimeout == null) {
            return asked == null ? typeTimeout : asked;
        }
        return asked.compareTo(typeTimeout) <= 0 ? asked : typeTimeout;
    }

    /** The types with a limit, by name. */
    public Map<String, TypeLimit> limited() {
        return byType;
    }

    /** The types with a rate, whose claims are recorded as starts ({@code type_starts}). */
    public List<String> rated() {
        return byType.values().stream().filter(limit -> limit.rate().isPresent()).map(TypeLimit::type).toList();
    }

    /** The types with a rate per key, whose claims are recorded as their groups' starts ({@code group_starts}). */
    public List<String> ratedPerKey() {
        return byType.values().stream().filter(limit -> limit.ratePerKey().isPresent()).map(TypeLimit::type).toList();
    }
}

package io.taskfence.handlers.builtin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;
import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySettings;

/**
 * The destinations {@code http} tasks may call: the service's ({@code taskfence.http.allowed-hosts}) and, for a key
 * with {@code allowed-hosts} of its own, that part of them. A configured key's are checked at start (an entry the
 * service's list lacks stops it); a stored key's when it is made or changed ({@link #whyNot}), and read when one of
 * its tasks first needs them, also once the key was revoked (its tasks stored before still run under them).
 */
@ApplicationScoped
public class KeyDestinations {

    /** A stored key's list as last read, and what it allows. */
    private record Stored(List<String> entries, AllowedDestinations allowed) {
    }

    private final AllowedDestinations service;
    private final Map<String, AllowedDestinations> configured = new HashMap<>();
    private final Map<String, Stored> stored = new ConcurrentHashMap<>();
    private final KeyDirectory keys;

    KeyDestinations(TaskfenceConfig config, KeyDirectory keys) {
        this.keys = keys;
        this.service = AllowedDestinations.of(config.http().allowedHosts().orElse(List.of()));
        config.auth().keys().forEach((name, key) -> key.allowedHosts().ifPresent(entries -> {
            String setting = "taskfence.auth.keys." + name + ".allowed-hosts";
            whyNot(setting, entries).ifPresent(why -> {
                throw new IllegalArgumentException(why);
            });
            configured.put(name, AllowedDestinations.of(setting, entries));
        }));
    }

    /** What the service may call. */
    AllowedDestinations service() {
        return service;
    }

    /** What {@code owner}'s tasks may call of {@link #service}, when the key names a part; empty: all of it. */
    Optional<AllowedDestinations> of(String owner) {
        if (owner == null) {
            return Optional.empty();
        }
        AllowedDestinations own = configured.get(owner);
        if (own != null) {
            return Optional.of(own);
        }
        Optional<List<String>> entries = keys.limitsOf(owner).filter(key -> !key.configured())
                .flatMap(KeySettings::allowedHosts);
        if (entries.isEmpty()) {
            return Optional.empty();
        }
        Stored known = stored.get(owner);
        if (known == null || !known.entries().equals(entries.get())) {
            known = new Stored(entries.get(), AllowedDestinations.of("allowedHosts", entries.get()));
            stored.put(owner, known);
        }
        return Optional.of(known.allowed());
    }

    /** Where {@code owner}'s own list is written, for a sentence that says it lacks a destination. */
    String listName(String owner) {
        return configured.containsKey(owner) ? "taskfence.auth.keys." + owner + ".allowed-hosts"
                : "its allowedHosts (/api/v1/keys/" + owner + ")";
    }

    /**
     * Why {@code entries} cannot be a key's {@code allowedHosts} (named {@code setting} in the sentence): one is not
     * {@code scheme://host[:port]}, or the service's list lacks it; empty when they can.
     */
    public Optional<String> whyNot(String setting, List<String> entries) {
        AllowedDestinations own;
        try {
            own = AllowedDestinations.of(setting, entries);
        } catch (IllegalArgumentException malformed) {
            return Optional.of(malformed.getMessage());
        }
        for (Destination entry : own.entries()) {
            if (!service.lists(entry)) {
                return Optional.of(setting + " entry " + entry + " is not in " + AllowedDestinations.KEY
                        + ": a key may call only destinations the service may call; add it there too, or remove it");
            }
        }
        return Optional.empty();
    }
}

package io.taskfence.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * What the lock package needs to know about its deployment.
 *
 * @param keyPrefix    first segment of every key and channel, e.g. {@code taskfence}; no braces, see below
 * @param replicaId    this replica's name, the first part of every owner it writes
 * @param defaultLease lease of a job lock that names none ({@code taskfence.lock.lease})
 */
public record LockSettings(String keyPrefix, String replicaId, Duration defaultLease) {

    public LockSettings {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        // Redis Cluster hashes only what is between a key's first '{' and the next '}': a brace in the prefix would
        // take the place of the {name} tag, and put a lock and its counter (or the stream) in different slots, where
        // the scripts that touch both are refused (CROSSSLOT).
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("taskfence.key-prefix must not contain '{' or '}' (was '" + keyPrefix
                    + "'): the keys' hash tags, e.g. {dispatch}, must be their first braces for Redis Cluster");
        }
        Objects.requireNonNull(replicaId, "replicaId");
        if (defaultLease == null || defaultLease.toMillis() < 3) {
            throw new IllegalArgumentException("defaultLease must be at least 3 ms, was " + defaultLease);
        }
    }
}

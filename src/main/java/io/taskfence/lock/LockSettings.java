package io.taskfence.lock;

import java.time.Duration;
import java.util.Objects;

/**
 * What the lock package needs to know about its deployment.
 *
 * @param keyPrefix    first segment of every key and channel, e.g. {@code taskfence}
 * @param replicaId    this replica's name, the first part of every owner it writes
 * @param defaultLease lease of a {@link Fenced} job that names none
 */
public record LockSettings(String keyPrefix, String replicaId, Duration defaultLease) {

    public LockSettings {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(replicaId, "replicaId");
        if (defaultLease == null || defaultLease.toMillis() < 3) {
            throw new IllegalArgumentException("defaultLease must be at least 3 ms, was " + defaultLease);
        }
    }
}

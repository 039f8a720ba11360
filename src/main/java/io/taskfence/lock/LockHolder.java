package io.taskfence.lock;

/** Who holds a lock now, as Redis says: {@code holder} is the owner (replica id and UUID). */
public record LockHolder(String name, String holder, long token, long ttlMillis) {
}

package io.taskfence.lock;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** Who holds a lock now, as Redis says: {@code holder} is the owner (replica id and UUID). */
@Schema(requiredProperties = { "name", "holder", "token", "ttlMillis" })
public record LockHolder(String name, String holder, long token, long ttlMillis) {
}

package io.taskfence.task;

import java.util.UUID;

/**
 * CDI event: a client cancelled task {@code taskId} (committed). The replica running it, if any, is told at once
 * rather than at its worker's next heartbeat.
 */
public record TaskCancelled(UUID taskId) {
}

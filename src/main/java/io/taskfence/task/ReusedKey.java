package io.taskfence.task;

import java.util.UUID;

/** An idempotency key that an earlier, different submission made a task with; nothing was stored. */
public record ReusedKey(String key, UUID existingTask) implements Submitted {

    /** What a client is told, for a single submission and a batch's task alike. */
    public String detail() {
        return "Idempotency-Key '" + key + "' was already used for a different request (task " + existingTask
                + "); use a new key for a new task";
    }
}

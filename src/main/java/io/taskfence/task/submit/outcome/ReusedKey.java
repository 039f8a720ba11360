package io.taskfence.task.submit.outcome;

import java.util.UUID;

/** An idempotency key that an earlier, different submission made a task with; nothing was stored. */
public record ReusedKey(String key, UUID existingTask) implements Submitted {

    /**
     * What a client is told, naming the key as the client sent it: the {@code Idempotency-Key} header of a
     * single submission, the {@code idempotencyKey} field of a batch's task.
     */
    public String detail(String keyName) {
        return keyName + " '" + key + "' was already used for a different request (task " + existingTask
                + "); use a new key for a new task";
    }
}

package io.taskfence.task;

import java.util.Objects;

/**
 * The tasks a reader or canceller may touch: every task, or only those one API key submitted. A task out of
 * scope is treated as absent, so that its existence is not revealed.
 *
 * @param owner the key name whose tasks are in scope; null for all tasks
 */
public record TaskScope(String owner) {

    public static final TaskScope ALL = new TaskScope(null);

    public static TaskScope ownedBy(String owner) {
        return new TaskScope(Objects.requireNonNull(owner));
    }
}

package io.taskfence.task.submit;

import java.util.UUID;

/**
 * The batch the tasks of one submission join (DESIGN.md, "Batches"): a new one, or an open one of the same owner.
 * A batch whose request does not keep it {@code open} is closed by it: its then task runs once its items have all
 * ended.
 */
public sealed interface BatchPlan {

    boolean open();

    /** A new batch whose then task is {@code then}; one whose then task's idempotency key made a batch already is that one. */
    record NewBatch(NewTask then, boolean open) implements BatchPlan {
    }

    /** The open batch {@code id}. */
    record AddTo(UUID id, boolean open) implements BatchPlan {
    }
}

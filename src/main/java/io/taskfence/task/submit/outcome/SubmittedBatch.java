package io.taskfence.task.submit.outcome;

import java.util.List;
import java.util.UUID;

/** What a batch submission came to: one outcome per task, in its order, and the batch the stored ones joined. */
public record SubmittedBatch(List<Submitted> items, UUID batchId) {
}

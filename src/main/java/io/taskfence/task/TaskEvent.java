package io.taskfence.task;

import java.time.Instant;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One committed status change of a task (DESIGN.md, "Task lifecycle", "History"), as clients see it.
 *
 * @param at when it happened, by PostgreSQL's clock (the task's {@code updatedAt} it set)
 * @param from the status before; null for the task's creation
 * @param to the status after
 * @param attempt the task's attempt number after the change
 * @param worker the claim id ({@code replica/uuid}) of the attempt the change starts or ends; null otherwise
 * @param error the task's last error when the change records a failure (to FAILED or DEAD); null otherwise
 * @param note what an event that changes no status ({@code from} = {@code to}) did: a dedupe submission replaced the
 *        task's payload or debounced it, e.g. {@code debounced (dedupe key k): runAt 2026-11-28T10:00:05.000Z}; null
 *        otherwise
 */
@Schema(requiredProperties = { "at", "from", "to", "attempt", "worker", "error", "note" })
public record TaskEvent(Instant at, @Schema(nullable = true) TaskStatus from, TaskStatus to, int attempt,
        @Schema(nullable = true) String worker, @Schema(nullable = true) String error,
        @Schema(nullable = true) String note) {

    /** The event as a submit key sees it: without the claim id, which names the replica (a pod) that ran it. */
    public TaskEvent withoutWorker() {
        return new TaskEvent(at, from, to, attempt, null, error, note);
    }
}

package io.taskfence.worker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;

import io.taskfence.store.GroupCommit;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.transition.AttemptTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;

/**
 * Writes this replica's successful attempts to the task table in batches, as a group commit: one writer
 * thread takes every success waiting and records them in one statement, and those that arrive while it
 * writes go together in the next. Under load many attempts share a round trip; on an idle replica a
 * success is written at once, never held back by a timer. Closing writes what is queued.
 */
final class SuccessBatches implements AutoCloseable {

    /** Most successes in one statement: bounds the statement's size and one batch's wait. */
    private static final int MOST_AT_ONCE = 500;

    private record Waiting(Completion completion, CompletableFuture<Boolean> written) {
    }

    private final AttemptTransitions transitions;
    private final GroupCommit<Waiting> batches;
    private final Consumer<List<Claim>> written;

    SuccessBatches(AttemptTransitions transitions) {
        this(transitions, claims -> {
        });
    }

    /** With {@code written} told of each batch's attempts once their batch has committed. */
    SuccessBatches(AttemptTransitions transitions, Consumer<List<Claim>> written) {
        this.transitions = transitions;
        this.written = written;
        this.batches = new GroupCommit<>("task-successes", MOST_AT_ONCE, this::write);
    }

    /**
     * Queues {@code claim}'s success with {@code result} for the next batch. The handler's thread need not
     * wait for it: the attempt's slot goes to the next task while the write is on its way, and the
     * processing lease still guards the task should the write fail.
     *
     * @return completes with false if the claim was no longer the task's current one, so nothing was
     *         written; fails with the exception PostgreSQL raised for the batch
     */
    CompletableFuture<Boolean> complete(Claim claim, JsonNode result) {
        Waiting success = new Waiting(new Completion(claim, result), new CompletableFuture<>());
        if (!batches.add(success)) {
            return CompletableFuture.failedFuture(new IllegalStateException("the workers are stopped"));
        }
        return success.written();
    }

    private void write(List<Waiting> batch) {
        try {
            Set<String> written = transitions.complete(batch.stream().map(Waiting::completion).toList());
            batch.forEach(success -> success.written().complete(written.contains(success.completion().claim().claimId())));
        } catch (RuntimeException e) {
            if (batch.size() > 1 && refusedAValue(e)) {
                // Nothing of the batch was written. One result PostgreSQL refuses must not fail the other tasks'
                // successes (their leases would run out and their handlers run again), so each goes on its own.
                // Not when PostgreSQL is unreachable: each alone would wait for a connection in turn.
                batch.forEach(success -> write(List.of(success)));
                return;
            }
            batch.forEach(success -> success.written().completeExceptionally(e));
            return;
        }
        this.written.accept(batch.stream().map(success -> success.completion().claim()).toList());
    }

    /** Whether a batch failed because of a value in it: PostgreSQL refused one, or one could not be written as JSON. */
    private static boolean refusedAValue(RuntimeException failure) {
        return !(failure instanceof TaskStoreException stored) || stored.refusedValue().isPresent();
    }

    /** Writes what is waiting, then stops the writer; what it could not write in time fails. */
    @Override
    public void close() throws InterruptedException {
        IllegalStateException stopped = new IllegalStateException("the workers stopped before this success was written");
        batches.close(Duration.ofSeconds(10)).forEach(left -> left.written().completeExceptionally(stopped));
    }
}

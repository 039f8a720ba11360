package io.taskfence.task.submit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.GroupCommit;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.outcome.ReusedKey;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.UnmetDependency;
import io.taskfence.task.submit.outcome.IdempotencyKeyReusedException;
import io.taskfence.task.submit.outcome.OverQuotaException;
import io.taskfence.task.submit.outcome.UnmetDependencyException;
import io.taskfence.task.submit.outcome.TypeTakenBack;
import io.taskfence.task.submit.outcome.TypeTakenBackException;

/**
 * Single submissions made at the same time share one insert and one commit ({@link GroupCommit}, with
 * {@link Submissions#submitAll}): a lone submission is written at once, and under load many share a
 * durable commit, which is what bounds a submission's cost. Each caller still gets its own answer, and
 * only once its task is committed.
 */
@ApplicationScoped
public class GroupedSubmissions {

    /** Most submissions in one insert: bounds a statement's size and one group's wait. */
    private static final int MOST_AT_ONCE = 500;

    private record Waiting(NewTask task, CompletableFuture<Submission> stored) {
    }

    private final Submissions submissions;
    private final GroupCommit<Waiting> groups;

    GroupedSubmissions(Submissions submissions) {
        this.submissions = submissions;
        this.groups = new GroupCommit<>("task-submissions", MOST_AT_ONCE, this::write);
    }

    /**
     * Client → PENDING, as {@link Submissions#submitEach} does it, in the next group's insert.
     *
     * @throws IdempotencyKeyReusedException if the key names a task made by a different request
     * @throws OverQuotaException if the owner has as many unfinished tasks as its quota allows
     * @throws UnmetDependencyException if the task depends on one its owner does not have, or on a failed one
     * @throws TaskStoreException if PostgreSQL failed; this task was not stored, unless the failure's outcome is unknown
     */
    public Submission submit(NewTask task) {
        try {
            return submitLater(task).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the submission was being stored", e);
        }
    }

    /**
     * As {@link #submit}, without a thread waiting: the future completes on the writer's thread once the group
     * committed, or fails with one of {@link #submit}'s exceptions. Whoever waits on it does its work elsewhere.
     */
    public CompletableFuture<Submission> submitLater(NewTask task) {
        Waiting submission = new Waiting(task, new CompletableFuture<>());
        if (!groups.add(submission)) {
            return CompletableFuture.failedFuture(new IllegalStateException("the service is stopping"));
        }
        return submission.stored();
    }

    private void write(List<Waiting> group) {
        List<Submitted> outcomes;
        try {
            outcomes = submissions.submitEach(group.stream().map(Waiting::task).toList());
        } catch (RuntimeException e) {
            if (group.size() == 1 || (e instanceof TaskStoreException failed && failed.outcomeUnknown())) {
                // A commit that may have stored the group is not made again: each caller hears it may have been.
                group.forEach(one -> one.stored().completeExceptionally(e));
                return;
            }
            // Nothing of the group was stored. One submission PostgreSQL refuses must not fail the others,
            // so each goes again on its own; if PostgreSQL is down, each fails on its own just as fast.
            group.forEach(one -> write(List.of(one)));
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            CompletableFuture<Submission> stored = group.get(i).stored();
            switch (outcomes.get(i)) {
                case Submission submission -> stored.complete(submission);
                case ReusedKey reused -> stored.completeExceptionally(new IdempotencyKeyReusedException(reused));
                case OverQuota refused -> stored.completeExceptionally(new OverQuotaException(refused));
                case UnmetDependency unmet -> stored.completeExceptionally(new UnmetDependencyException(unmet));
                case TypeTakenBack gone -> stored.completeExceptionally(new TypeTakenBackException(gone));
            }
        }
    }

    /** Writes what is waiting, then stops the writer; what it could not write in time fails. */
    @PreDestroy
    void close() throws InterruptedException {
        IllegalStateException stopped = new IllegalStateException("the service stopped before this task was stored");
        groups.close(Duration.ofSeconds(10)).forEach(left -> left.stored().completeExceptionally(stopped));
    }
}

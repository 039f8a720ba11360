package io.taskfence.task;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Single submissions made at the same time share one insert and one commit, as a group commit: one writer
 * takes every submission waiting and stores them with {@link TaskTransitions#submitAll}, and those that
 * arrive meanwhile go together in the next. A lone submission is written at once, never held back by a
 * timer; under load many share a durable commit, which is what bounds a submission's cost. Each caller
 * still gets its own answer, and only once its task is committed.
 */
@ApplicationScoped
public class GroupedSubmissions {

    /** Most submissions in one insert: bounds a statement's size and one group's wait. */
    private static final int MOST_AT_ONCE = 500;

    private record Waiting(NewTask task, CompletableFuture<Submission> stored) {
    }

    private final TaskTransitions transitions;
    private final BlockingQueue<Waiting> waiting = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closed;

    GroupedSubmissions(TaskTransitions transitions) {
        this.transitions = transitions;
        this.writer = Thread.ofPlatform().name("task-submissions").daemon().start(this::writeUntilClosed);
    }

    /**
     * Client → PENDING, as {@link TaskTransitions#submit} does it, in the next group's insert.
     *
     * @throws IdempotencyKeyReusedException if the key names a task made by a different request
     * @throws TaskStoreException if PostgreSQL failed; this task was not stored
     */
    public Submission submit(NewTask task) {
        Waiting submission = new Waiting(task, new CompletableFuture<>());
        synchronized (this) { // never added after close has let the writer go
            if (closed) {
                throw new IllegalStateException("the service is stopping");
            }
            waiting.add(submission);
        }
        try {
            return submission.stored().get();
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

    private void writeUntilClosed() {
        List<Waiting> group = new ArrayList<>();
        while (!closed || !waiting.isEmpty()) {
            try {
                Waiting first = waiting.poll(100, TimeUnit.MILLISECONDS); // to see the close
                if (first == null) {
                    continue;
                }
                group.add(first);
                waiting.drainTo(group, MOST_AT_ONCE - 1);
                write(group);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                group.clear();
            }
        }
    }

    private void write(List<Waiting> group) {
        List<Submitted> outcomes;
        try {
            outcomes = transitions.submitAll(group.stream().map(Waiting::task).toList());
        } catch (RuntimeException e) {
            if (group.size() == 1) {
                group.getFirst().stored().completeExceptionally(e);
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
            }
        }
    }

    /** Writes what is waiting, then stops the writer; what it could not write in time fails. */
    @PreDestroy
    void close() throws InterruptedException {
        synchronized (this) {
            closed = true;
        }
        writer.join(TimeUnit.SECONDS.toMillis(10));
        IllegalStateException stopped = new IllegalStateException("the service stopped before this task was stored");
        for (Waiting left = waiting.poll(); left != null; left = waiting.poll()) {
            left.stored().completeExceptionally(stopped);
        }
    }
}

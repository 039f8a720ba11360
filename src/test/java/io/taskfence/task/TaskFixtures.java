package io.taskfence.task;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.store.FenceToken;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.transition.Claim;

/**
 * Brings tasks into a given state through the real transitions, for tests. Tasks of other tests may
 * share the table, so every step picks out this fixture's own tasks.
 */
@ApplicationScoped
public class TaskFixtures {

    public static final Duration LEASE = Duration.ofMinutes(5);

    private final TaskTransitions transitions;
    private final DataSource db;

    TaskFixtures(TaskTransitions transitions, DataSource db) {
        this.transitions = transitions;
        this.db = db;
    }

    /** A fence token whose holder is named after the token: one holder per token number. */
    public static FenceToken fence(String lock, long token) {
        return new FenceToken(lock, token, "holder:" + token);
    }

    public Task pending() {
        return pending(5, null);
    }

    public Task pending(int maxAttempts, Instant deadline) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode().put("fixture", UUID.randomUUID().toString());
        return transitions.submit(new NewTask("noop", payload, maxAttempts, 1000, null, deadline, null)).task();
    }

    /** Moves the given PENDING tasks (and any other due ones) to ENQUEUED under a lock of its own. */
    public void enqueue(List<UUID> ids) {
        List<UUID> moved = new ArrayList<>(transitions.enqueueDue(TaskFixtures.fence("fixture-" + UUID.randomUUID(), 1), 100_000));
        if (!moved.containsAll(ids)) {
            throw new IllegalStateException("fixture tasks were not due: " + ids);
        }
    }

    public UUID enqueued() {
        UUID id = pending().id();
        enqueue(List.of(id));
        return id;
    }

    public Claim claimed() {
        return claimed(pending());
    }

    public Claim claimed(Task pending) {
        enqueue(List.of(pending.id()));
        return transitions.claim(pending.id(), "fixture-" + UUID.randomUUID(), LEASE).orElseThrow();
    }

    /** Makes a task look created and last changed {@code age} earlier than it was: a finished task that old. */
    public void backdate(UUID id, Duration age) {
        Sql.run(db, "update tasks set created_at = created_at - ? * interval '1 millisecond', "
                + "updated_at = updated_at - ? * interval '1 millisecond' where id = ?", age.toMillis(), age.toMillis(), id);
    }

    /** Makes a task look {@code age} older than it is (a test's stand-in for waiting that long). */
    public void age(UUID id, Duration age) {
        Sql.run(db, "update tasks set updated_at = updated_at - ? * interval '1 millisecond', "
                + "lease_until = lease_until - ? * interval '1 millisecond', "
                + "run_at = run_at - ? * interval '1 millisecond' where id = ?",
                age.toMillis(), age.toMillis(), age.toMillis(), id);
    }
}

package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.submit.outcome.ReusedKey;
import io.taskfence.task.submit.outcome.BatchRefusedException;

/**
 * The batch row a batch submission writes, in its transaction (DESIGN.md, "Batches"): made with its then task, or
 * locked while the submission adds its tasks, so that a batch cannot be closed while tasks join it, nor joined once
 * closed.
 */
final class BatchMembership {

    private final TaskRows rows;
    private final TaskInserts inserts;

    BatchMembership(TaskRows rows, TaskInserts inserts) {
        this.rows = rows;
        this.inserts = inserts;
    }

    /** A batch as locked by {@link #join}: its then task, whether it is open, and whether this submission made it. */
    record Joined(UUID id, UUID thenTask, boolean open, boolean made) {
    }

    /**
     * The batch of {@code plan}, its row locked: a new one (its then task WAITING), the one the then task's
     * idempotency key made already, or the open one the plan names.
     *
     * @throws BatchRefusedException if the plan names no batch of {@code owner}, or the then task's key made a task
     *         that is not a batch's then task
     */
    Joined join(Connection connection, BatchPlan plan, String owner) throws SQLException {
        return switch (plan) {
            case BatchPlan.AddTo add -> locked(connection, add.id(), owner)
                    .orElseThrow(() -> BatchRefusedException.unknown(add.id(), owner));
            case BatchPlan.NewBatch made -> {
                if (made.then().idempotencyKey() != null) {
                    Optional<Joined> earlier = lockedByThenKey(connection, made.then());
                    if (earlier.isPresent()) {
                        yield earlier.get();
                    }
                }
                UUID id = UUID.randomUUID();
                Optional<UUID> then = insertThen(connection, made.then(), id);
                if (then.isPresent()) {
                    yield new Joined(id, then.get(), true, true);
                }
                // A concurrent submission with the same key inserted it first, and has committed since.
                yield lockedByThenKey(connection, made.then()).orElseThrow();
            }
        };
    }

    /**
     * {@code added} tasks joined the batch; it stays open only if the plan says so. A request that added none leaves
     * the batch as it is (sent again, it was made before, and its tasks joined then).
     */
    void added(Connection connection, Joined batch, int added, boolean open) throws SQLException {
        if (added == 0) {
            return;
        }
        if (!batch.open()) {
            throw BatchRefusedException.closed(batch.id());
        }
        try (PreparedStatement update = connection.prepareStatement("update batches set items = items + ?, open = ?, "
                + "closed_at = case when ? then null else now() end where id = ?")) {
            update.setInt(1, added);
            update.setBoolean(2, open);
            update.setBoolean(3, open);
            update.setObject(4, batch.id());
            update.executeUpdate();
        }
    }

    private static Optional<Joined> locked(Connection connection, UUID id, String owner) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("select id, open, then_task_id from batches "
                + "where id = ? and coalesce(owner, '') = coalesce(?, '') for no key update")) {
            lock.setObject(1, id);
            lock.setString(2, owner);
            return joined(lock);
        }
    }

    private Optional<Joined> lockedByThenKey(Connection connection, NewTask then) throws SQLException {
        UUID task;
        UUID batch;
        try (PreparedStatement select = connection.prepareStatement("select t.id, (select b.id from batches b "
                + "where b.then_task_id = t.id) from tasks t where t.idempotency_key = ? "
                + "and coalesce(t.owner, '') = coalesce(?, '')")) {
            select.setString(1, then.idempotencyKey());
            select.setString(2, then.owner());
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                task = row.getObject(1, UUID.class);
                batch = row.getObject(2, UUID.class);
            }
        }
        if (batch == null) {
            throw new BatchRefusedException(BatchRefusedException.Reason.THEN_KEY_REUSED,
                    new ReusedKey(then.idempotencyKey(), task).detail("then.idempotencyKey"));
        }
        return locked(connection, batch, then.owner());
    }

    private static Optional<Joined> joined(PreparedStatement select) throws SQLException {
        try (ResultSet row = select.executeQuery()) {
            return row.next() ? Optional.of(new Joined(row.getObject(1, UUID.class), row.getObject(3, UUID.class),
                    row.getBoolean(2), false)) : Optional.empty();
        }
    }

    /**
     * The then task, WAITING for the batch (with the policy of a task that runs whatever its dependencies came to),
     * and the batch's row, open until {@link #added} says otherwise.
     *
     * @return the then task's id; empty if its idempotency key had made a task already: nothing was inserted
     */
    private Optional<UUID> insertThen(Connection connection, NewTask then, UUID batch) throws SQLException {
        List<Task> made = inserts.insert(connection, List.of(new TaskInserts.Row(UUID.randomUUID(), then,
                rows.write(then.payload()), 0, false, true)), null);
        if (made.isEmpty()) {
            return Optional.empty();
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into batches (id, owner, then_task_id, open) values (?, ?, ?, true)")) {
            insert.setObject(1, batch);
            insert.setString(2, made.getFirst().owner());
            insert.setObject(3, made.getFirst().id());
            insert.executeUpdate();
        }
        return Optional.of(made.getFirst().id());
    }
}

package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.TaskDatabase;
import io.taskfence.task.Task;
import io.taskfence.task.TaskHistory;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskScope;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.transition.TransitionMeters;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.OverQuotaException;

/**
 * DEAD or CANCELLED → PENDING: a task submitted again, so held to its owner's quota as a submission is
 * ({@link Quotas}). Otherwise cancelling would free quota that a retry takes back unchecked.
 */
@ApplicationScoped
public class Retries {

    /**
     * A batch's then task cancelled before its batch completed runs only once the batch does (DESIGN.md, "Batches"):
     * retried, it would run at once, without the batch's outcome.
     */
    private static final String NOT_A_WAITING_THEN = "not exists (select 1 from batches b "
            + "where b.then_task_id = tasks.id and b.completed_at is null)";

    private final TaskDatabase database;
    private final TaskRows rows;
    private final TransitionMeters meters;
    private final Quotas quotas;

    Retries(TaskDatabase database, TaskRows rows, TransitionMeters meters, Quotas quotas) {
        this.database = database;
        this.rows = rows;
        this.meters = meters;
        this.quotas = quotas;
    }

    /**
     * DEAD or CANCELLED → PENDING, due now, with all its attempts again, if the task is in {@code scope}. The owner's
     * quota is counted under its lock first; the update re-checks the status, so a task retried meanwhile by
     * another request is retried once.
     *
     * @return the task retried; empty if none in scope is DEAD or CANCELLED (or it is the then task of a batch that
     *         has not completed)
     * @throws OverQuotaException if the owner has as many unfinished tasks as its quota allows; nothing changed
     */
    public Optional<Task> retry(UUID id, TaskScope scope) {
        Optional<Task> retried = database.inTransaction(connection -> {
            try (PreparedStatement owner = connection.prepareStatement("select owner from tasks where id = ? "
                    + "and (?::text is null or owner = ?) and status in ('DEAD', 'CANCELLED') and "
                    + NOT_A_WAITING_THEN)) {
                owner.setObject(1, id);
                owner.setString(2, scope.owner());
                owner.setString(3, scope.owner());
                try (ResultSet row = owner.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    String name = row.getString(1);
                    OptionalInt limit = quotas.limitFor(name);
                    if (limit.isPresent()) {
                        long unfinished = quotas.lockAndCount(connection, name, limit.getAsInt());
                        if (unfinished >= limit.getAsInt()) {
                            throw new OverQuotaException(new OverQuota(name, unfinished, limit.getAsInt(), 1, true));
                        }
                    }
                }
            }
            try (PreparedStatement retry = connection.prepareStatement("update tasks set status = 'PENDING', "
                    + "attempt = 0, run_at = now(), lease_until = null, worker = null, updated_at = now(), "
                    + TaskHistory.IMPLIED_EVENTS_CLEARED + " "
                    + "where id = ? and (?::text is null or owner = ?) and status in ('DEAD', 'CANCELLED') and "
                    + NOT_A_WAITING_THEN + " returning " + TaskRows.COLUMNS)) {
                retry.setObject(1, id);
                retry.setString(2, scope.owner());
                retry.setString(3, scope.owner());
                return rows.tasks(retry).stream().findFirst();
            }
        });
        // Committed: database.inTransaction() returns only after the commit.
        retried.ifPresent(task -> meters.moved(task.status(), task.type()));
        return retried;
    }

    /** What {@link #retryAll} did: the tasks it moved, and how many it left for their owners' quotas. */
    public record Retried(List<TransitionMeters.Moved> moved, int overQuota) {
    }

    /**
     * DEAD or CANCELLED → PENDING, as {@link #retry}, for those of {@code ids} that still are and have not changed
     * since {@code unchangedSince} (a task retried and ended again since a bulk action was asked for is not retried
     * by it again), in the caller's transaction. Each owner's quota is counted under its lock first, in name order;
     * the tasks beyond its room stay as they are. Rows are locked in id order, as claims and successes lock them.
     * The caller counts the moves ({@link TransitionMeters#moved}) once its transaction has committed.
     */
    public Retried retryAll(Connection connection, List<UUID> ids, Instant unchangedSince) throws SQLException {
        Map<String, Integer> room = new TreeMap<>();
        try (PreparedStatement owners = connection.prepareStatement("select distinct coalesce(owner, '') from tasks "
                + "where id = any(?) and status in ('DEAD', 'CANCELLED')")) {
            owners.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            try (ResultSet row = owners.executeQuery()) {
                while (row.next()) {
                    String owner = row.getString(1);
                    OptionalInt limit = quotas.limitFor(owner.isEmpty() ? null : owner);
                    if (limit.isPresent()) {
                        room.put(owner, limit.getAsInt());
                    }
                }
            }
        }
        for (Map.Entry<String, Integer> owner : room.entrySet()) {
            long unfinished = quotas.lockAndCount(connection, owner.getKey(), owner.getValue());
            owner.setValue((int) Math.max(0, owner.getValue() - unfinished));
        }
        List<UUID> within = new ArrayList<>();
        int overQuota = 0;
        try (PreparedStatement lock = connection.prepareStatement("select id, coalesce(owner, '') from tasks "
                + "where id = any(?) and status in ('DEAD', 'CANCELLED') and updated_at <= ? and " + NOT_A_WAITING_THEN
                + " order by id for update")) {
            lock.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            lock.setTimestamp(2, Timestamp.from(unchangedSince));
            try (ResultSet row = lock.executeQuery()) {
                while (row.next()) {
                    Integer left = room.get(row.getString(2));
                    if (left != null && left == 0) {
                        overQuota++;
                        continue;
                    }
                    if (left != null) {
                        room.put(row.getString(2), left - 1);
                    }
                    within.add(row.getObject(1, UUID.class));
                }
            }
        }
        List<TransitionMeters.Moved> moved = new ArrayList<>();
        try (PreparedStatement retry = connection.prepareStatement("update tasks set status = 'PENDING', attempt = 0, "
                + "run_at = now(), lease_until = null, worker = null, updated_at = now(), "
                + TaskHistory.IMPLIED_EVENTS_CLEARED + " where id = any(?) returning type")) {
            retry.setArray(1, connection.createArrayOf("uuid", within.toArray()));
            try (ResultSet row = retry.executeQuery()) {
                while (row.next()) {
                    moved.add(new TransitionMeters.Moved(TaskStatus.PENDING, row.getString(1)));
                }
            }
        }
        return new Retried(moved, overQuota);
    }
}

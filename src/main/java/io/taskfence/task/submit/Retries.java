package io.taskfence.task.submit;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.TaskDatabase;
import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskScope;
import io.taskfence.task.transition.TransitionMeters;

/**
 * DEAD or CANCELLED → PENDING: a task submitted again, so held to its owner's quota as a submission is
 * ({@link Quotas}). Otherwise cancelling would free quota that a retry takes back unchecked.
 */
@ApplicationScoped
public class Retries {

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
     * @return the task retried; empty if none in scope is DEAD or CANCELLED
     * @throws OverQuotaException if the owner has as many unfinished tasks as its quota allows; nothing changed
     */
    public Optional<Task> retry(UUID id, TaskScope scope) {
        Optional<Task> retried = database.inTransaction(connection -> {
            try (PreparedStatement owner = connection.prepareStatement("select owner from tasks where id = ? "
                    + "and (?::text is null or owner = ?) and status in ('DEAD', 'CANCELLED')")) {
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
                    + "attempt = 0, run_at = now(), lease_until = null, worker = null, updated_at = now() "
                    + "where id = ? and (?::text is null or owner = ?) and status in ('DEAD', 'CANCELLED') "
                    + "returning " + TaskRows.COLUMNS)) {
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
}

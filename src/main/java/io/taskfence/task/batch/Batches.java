package io.taskfence.task.batch;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskScope;
import io.taskfence.task.TaskStatus;

/**
 * Reads batches, with their counts exact as of the read (the folded counts and the ends not folded yet), and closes
 * them. A batch out of the reader's scope is as absent as one that does not exist.
 */
@ApplicationScoped
public class Batches {

    /*
     * The counts add the ends the batches job has not folded yet: an end entering a status counts one, one leaving
     * it (a DEAD task retried) takes one off.
     */
    private static final String VIEW = "select b.id, b.open, b.items, b.created_at, b.closed_at, b.completed_at, "
            + "b.owner, b.then_task_id, t.status as then_status, "
            + "b.succeeded + coalesce(e.succeeded, 0) as succeeded, b.dead + coalesce(e.dead, 0) as dead, "
            + "b.cancelled + coalesce(e.cancelled, 0) as cancelled from batches b "
            + "left join tasks t on t.id = b.then_task_id "
            + "left join lateral (select sum(case when to_status = 'SUCCEEDED' then 1 else 0 end "
            + "- case when from_status = 'SUCCEEDED' then 1 else 0 end) as succeeded, "
            + "sum(case when to_status = 'DEAD' then 1 else 0 end - case when from_status = 'DEAD' then 1 else 0 end) as dead, "
            + "sum(case when to_status = 'CANCELLED' then 1 else 0 end "
            + "- case when from_status = 'CANCELLED' then 1 else 0 end) as cancelled "
            + "from batch_item_ends where batch_id = b.id) e on true ";

    private final TaskDatabase database;

    Batches(TaskDatabase database) {
        this.database = database;
    }

    public Optional<BatchView> find(UUID id, TaskScope scope) {
        return database.inConnection(connection -> first(connection, id, scope));
    }

    /**
     * The batch in {@code scope} that has not completed whose then task is {@code task}, if there is one. Another
     * key's batch is as absent as its task: naming it would tell the caller that the task exists.
     */
    public Optional<UUID> incompleteWithThen(UUID task, TaskScope scope) {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select id from batches "
                    + "where then_task_id = ? and completed_at is null and (?::text is null or coalesce(owner, '') = ?)")) {
                select.setObject(1, task);
                select.setString(2, scope.owner());
                select.setString(3, scope.owner());
                try (ResultSet row = select.executeQuery()) {
                    return row.next() ? Optional.of(row.getObject(1, UUID.class)) : Optional.empty();
                }
            }
        });
    }

    /** The batches in {@code scope}, newest first, at most {@code limit}. */
    public List<BatchView> newest(TaskScope scope, int limit) {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(VIEW
                    + "where (?::text is null or coalesce(b.owner, '') = ?) order by b.created_at desc, b.id limit ?")) {
                select.setString(1, scope.owner());
                select.setString(2, scope.owner());
                select.setInt(3, limit);
                return views(select);
            }
        });
    }

    /**
     * Closes the batch: no task joins it from now on, and its then task runs once its tasks have ended. Closing a
     * closed batch changes nothing.
     *
     * @return the batch, closed; empty if it does not exist in {@code scope}
     */
    public Optional<BatchView> close(UUID id, TaskScope scope) {
        return database.inTransaction(connection -> {
            try (PreparedStatement close = connection.prepareStatement("update batches set open = false, "
                    + "closed_at = now() where id = ? and open and (?::text is null or coalesce(owner, '') = ?)")) {
                close.setObject(1, id);
                close.setString(2, scope.owner());
                close.setString(3, scope.owner());
                close.executeUpdate();
            }
            return first(connection, id, scope);
        });
    }

    private static Optional<BatchView> first(Connection connection, UUID id, TaskScope scope) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(VIEW
                + "where b.id = ? and (?::text is null or coalesce(b.owner, '') = ?)")) {
            select.setObject(1, id);
            select.setString(2, scope.owner());
            select.setString(3, scope.owner());
            return views(select).stream().findFirst();
        }
    }

    private static List<BatchView> views(PreparedStatement select) throws SQLException {
        List<BatchView> views = new ArrayList<>();
        try (ResultSet row = select.executeQuery()) {
            while (row.next()) {
                int items = row.getInt("items");
                int succeeded = row.getInt("succeeded");
                int dead = row.getInt("dead");
                int cancelled = row.getInt("cancelled");
                String thenStatus = row.getString("then_status");
                Instant completed = TaskRows.instant(row, "completed_at");
                views.add(new BatchView(row.getObject("id", UUID.class),
                        row.getBoolean("open") ? BatchView.Status.OPEN
                                : completed == null ? BatchView.Status.CLOSED : BatchView.Status.COMPLETE,
                        items, succeeded, dead, cancelled, items - succeeded - dead - cancelled,
                        row.getObject("then_task_id", UUID.class),
                        thenStatus == null ? null : TaskStatus.valueOf(thenStatus), row.getString("owner"),
                        TaskRows.instant(row, "created_at"), TaskRows.instant(row, "closed_at"), completed));
            }
        }
        return views;
    }
}

package io.taskfence.task.transition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;

import io.taskfence.store.TaskDatabase;
import io.taskfence.task.Task;
import io.taskfence.task.TaskHistory;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskScope;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TasksEnded;

/**
 * What a client or operator may do to a task it can see: cancel it while unfinished. (Retry, which submits a task
 * again, is {@code task.submit.Retries}: it is held to the owner's quota.)
 */
@ApplicationScoped
public class OperatorControls {

    private final TaskDatabase database;
    private final TaskRows rows;
    private final TransitionMeters meters;
    private final Event<TasksEnded> ended;

    OperatorControls(TaskDatabase database, TaskRows rows, TransitionMeters meters, Event<TasksEnded> ended) {
        this.ended = ended;
        this.database = database;
        this.rows = rows;
        this.meters = meters;
    }

    /**
     * WAITING, PENDING, ENQUEUED, PROCESSING or FAILED → CANCELLED, if the task is in {@code scope}. A PROCESSING task's
     * claim is voided in the same statement (no lease, no claim id): every write its worker may still make
     * (heartbeat, success, failure, later) names that claim and a PROCESSING status, so all of them lose from
     * here on. The worker learns it at its next heartbeat and interrupts the handler. The status the row had
     * is read under the row's lock (the statement's CTE), so that a cancel of a running task is counted as such.
     */
    public Optional<Task> cancel(UUID id, TaskScope scope) {
        Optional<Task> cancelled = database.inConnection(connection -> {
            try (PreparedStatement cancel = connection.prepareStatement("with target as (select id as target_id, "
                    + "status as was from tasks where id = ? and (?::text is null or owner = ?) "
                    + "and status in ('WAITING', 'PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED') for update) "
                    + "update tasks set status = 'CANCELLED', lease_until = null, worker = null, updated_at = now(), "
                    + TaskHistory.IMPLIED_EVENTS_CLEARED + " "
                    // The row is locked with a status that may be cancelled: no second status test, which would
                    // see the statement's snapshot, older than the row the lock waited for (a claim's).
                    + "from target where id = target_id returning " + TaskRows.COLUMNS + ", was")) {
                cancel.setObject(1, id);
                cancel.setString(2, scope.owner());
                cancel.setString(3, scope.owner());
                try (ResultSet row = cancel.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    Task task = rows.task(row);
                    if (TaskStatus.PROCESSING.name().equals(row.getString("was"))) {
                        meters.cancelledWhileRunning(task.type());
                    }
                    return Optional.of(task);
                }
            }
        });
        return counted(cancelled);
    }

    /** A task a bulk cancel moved: its type, and whether it was running (its handler is to be stopped). */
    public record Cancelled(UUID id, String type, boolean wasRunning) {
    }

    /**
     * As {@link #cancel}, for those of {@code ids} that may still be cancelled and were created by
     * {@code createdBy}, in the caller's transaction. The tasks not WAITING are locked first, then the WAITING ones,
     * each in id order, as a submission locks the tasks it waits for and the follow-ups job the WAITING dependents it
     * moves (DESIGN.md, "Dependencies"), so none of them deadlock. The caller counts the moves, tells running handlers and fires
     * {@link TasksEnded} once its transaction has committed ({@link #cancelled}).
     */
    public List<Cancelled> cancelAll(Connection connection, List<UUID> ids, Instant createdBy) throws SQLException {
        List<Cancelled> cancelled = new ArrayList<>();
        for (String statuses : List.of("'PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED'", "'WAITING'")) {
            try (PreparedStatement cancel = connection.prepareStatement("with target as (select id as target_id, "
                    + "status as was from tasks where id = any(?) and created_at <= ? and status in (" + statuses + ") "
                    + "order by id for update) "
                    + "update tasks set status = 'CANCELLED', lease_until = null, worker = null, updated_at = now(), "
                    + TaskHistory.IMPLIED_EVENTS_CLEARED + " "
                    + "from target where id = target_id returning id, type, was")) {
                cancel.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
                cancel.setTimestamp(2, Timestamp.from(createdBy));
                try (ResultSet row = cancel.executeQuery()) {
                    while (row.next()) {
                        cancelled.add(new Cancelled(row.getObject(1, UUID.class), row.getString(2),
                                TaskStatus.PROCESSING.name().equals(row.getString(3))));
                    }
                }
            }
        }
        return cancelled;
    }

    /** Counts the tasks a bulk cancel moved, once its transaction has committed, and tells those who wait for them. */
    public void cancelled(List<Cancelled> cancelled) {
        if (cancelled.isEmpty()) {
            return;
        }
        meters.moved(cancelled.stream()
                .map(task -> new TransitionMeters.Moved(TaskStatus.CANCELLED, task.type())).toList());
        cancelled.stream().filter(Cancelled::wasRunning).forEach(task -> meters.cancelledWhileRunning(task.type()));
        ended.fire(new TasksEnded(cancelled.stream().map(Cancelled::id).toList()));
    }

    /** Counts a single-row transition that won (its statement has committed: auto-commit). */
    private Optional<Task> counted(Optional<Task> moved) {
        moved.ifPresent(task -> {
            meters.moved(task.status(), task.type());
            ended.fire(new TasksEnded(List.of(task.id())));
        });
        return moved;
    }
}

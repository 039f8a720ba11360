package io.taskfence.task.batch;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.transition.TransitionMeters;

/**
 * The batches job's fenced transaction (DESIGN.md, "Batches"): folds the items' ends into their batches' counts, then
 * completes each closed batch whose items have all ended and none of whose ends is left to fold, releasing its then
 * task (WAITING → PENDING) with the batch's outcome in its payload. A batch completes once: {@code completed_at} is
 * set by the statement that releases the then task, conditionally on it being null, and the then task moves only
 * from WAITING. A then task cancelled meanwhile stays CANCELLED, with the outcome in its payload all the same: retried
 * (only now, Retries), it runs with it.
 */
@ApplicationScoped
public class BatchCompletions {

    /** The most failed items a then task's payload names; the rest are listed by their batch and status. */
    public static final int MOST_FAILED_NAMED = 1000;

    private static final String FOLD = "with ends as (delete from batch_item_ends where ctid = any(array("
            + "select ctid from batch_item_ends limit ?)) returning batch_id, from_status, to_status), "
            + "counts as (select batch_id, "
            + "sum(case when to_status = 'SUCCEEDED' then 1 else 0 end - case when from_status = 'SUCCEEDED' then 1 else 0 end) s, "
            + "sum(case when to_status = 'DEAD' then 1 else 0 end - case when from_status = 'DEAD' then 1 else 0 end) d, "
            + "sum(case when to_status = 'CANCELLED' then 1 else 0 end - case when from_status = 'CANCELLED' then 1 else 0 end) c "
            + "from ends group by batch_id), "
            + "folded as (update batches b set succeeded = b.succeeded + counts.s, dead = b.dead + counts.d, "
            + "cancelled = b.cancelled + counts.c from counts where b.id = counts.batch_id) "
            + "select count(*) from ends";

    private static final String COMPLETE = "with done as (update batches b set completed_at = now() "
            + "where completed_at is null and not open and succeeded + dead + cancelled >= items "
            + "and not exists (select 1 from batch_item_ends e where e.batch_id = b.id) "
            + "returning id, then_task_id, items, succeeded, dead, cancelled), "
            + "released as (update tasks t set status = case when t.status = 'WAITING' then 'PENDING' else t.status end, "
            + "updated_at = case when t.status = 'WAITING' then now() else t.updated_at end, "
            + "payload = t.payload || jsonb_build_object('batch', jsonb_build_object('id', done.id, "
            + "'items', done.items, 'succeeded', done.succeeded, 'dead', done.dead, 'cancelled', done.cancelled, "
            + "'failed', coalesce((select jsonb_agg(f.id order by f.id) from (select f.id from tasks f "
            + "where f.batch_id = done.id and f.status in ('DEAD', 'CANCELLED') order by f.id limit "
            + MOST_FAILED_NAMED + ") f), '[]'::jsonb))) "
            + "from done where t.id = done.then_task_id and t.status in ('WAITING', 'CANCELLED') "
            + "returning t.type, t.status) "
            + "select (select count(*) from done), type from (select 1) one "
            + "left join released on released.status = 'PENDING'";

    private final TaskDatabase database;
    private final TransitionMeters meters;

    BatchCompletions(TaskDatabase database, TransitionMeters meters) {
        this.database = database;
        this.meters = meters;
    }

    /** What one run did: item ends folded, batches completed, and then tasks released. */
    public record Run(int endsFolded, int completed, int released) {
    }

    /**
     * Folds at most {@code limit} ends, then completes the batches that are complete, in one fenced transaction.
     *
     * @throws io.taskfence.store.StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public Run foldAndComplete(FenceToken fence, int limit) {
        List<TransitionMeters.Moved> released = new ArrayList<>();
        Run run = database.fenced(fence, connection -> {
            int folded = fold(connection, limit);
            int completed = 0;
            try (PreparedStatement complete = connection.prepareStatement(COMPLETE);
                    ResultSet row = complete.executeQuery()) {
                while (row.next()) {
                    completed = row.getInt(1);
                    if (row.getString(2) != null) {
                        released.add(new TransitionMeters.Moved(TaskStatus.PENDING, row.getString(2)));
                    }
                }
            }
            if (!released.isEmpty()) {
                // Released tasks are due now: the dispatchers hear it at commit, as they hear of inserted ones (V12).
                try (PreparedStatement notify = connection.prepareStatement(
                        "select pg_notify('taskfence_due_' || md5(current_schema()), '')")) {
                    notify.execute();
                }
            }
            return new Run(folded, completed, released.size());
        });
        meters.moved(released);
        return run;
    }

    /**
     * Retention's delete of batches completed longer ago than {@code age}, at most {@code limit} of them, in one fenced
     * statement. Their tasks are retention's as any other's.
     *
     * @return how many were deleted
     */
    public int deleteCompletedBefore(FenceToken fence, Duration age, int limit) {
        return database.fenced(fence, connection -> {
            try (PreparedStatement delete = connection.prepareStatement("delete from batches where id = any(array("
                    + "select id from batches where completed_at < now() - ? * interval '1 millisecond' "
                    + "order by completed_at limit ?))")) {
                delete.setLong(1, age.toMillis());
                delete.setInt(2, limit);
                return delete.executeUpdate();
            }
        });
    }

    private static int fold(Connection connection, int limit) throws SQLException {
        try (PreparedStatement fold = connection.prepareStatement(FOLD)) {
            fold.setInt(1, limit);
            try (ResultSet row = fold.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}

package io.taskfence.task;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;


import jakarta.enterprise.context.ApplicationScoped;

/**
 * Retention's deletes (DESIGN section 7, "Retention"): finished tasks with their history, and old
 * {@code dispatch_log} rows, a bounded batch per fenced statement, so that no transaction holds many locks or
 * writes much WAL at once. Times are PostgreSQL's {@code now()}.
 */
@ApplicationScoped
public class FinishedTasks {

    /** The statuses a task ends in, and the only ones retention deletes. */
    public static final Set<TaskStatus> FINISHED = Set.of(TaskStatus.SUCCEEDED, TaskStatus.DEAD, TaskStatus.CANCELLED);

    private final TaskDatabase database;

    FinishedTasks(TaskDatabase database) {
        this.database = database;
    }

    /**
     * Deletes at most {@code limit} tasks in {@code status} that have not changed for {@code age} (their
     * {@code updated_at}: when they finished), and their events, in one fenced statement. A task that finishes
     * after it was created is found through the index over (status, created_at), bounded by the cut-off. Rows
     * another transaction holds (a retry bringing one back) are skipped; a task retried meanwhile is no longer
     * in {@code status} when its row is locked and stays. Its events go with it in the same statement, and none
     * can be added after: a transition needs the row, which is gone.
     *
     * @return how many tasks were deleted
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was deleted
     */
    public int deleteOlderThan(FenceToken fence, TaskStatus status, Duration age, int limit) {
        if (!FINISHED.contains(status)) {
            throw new IllegalArgumentException("only finished tasks are deleted, not " + status);
        }
        return database.fenced(fence, connection -> {
            try (PreparedStatement delete = connection.prepareStatement("with old as (select id from tasks "
                    + "where status = ? and created_at < now() - ? * interval '1 millisecond' "
                    + "and updated_at < now() - ? * interval '1 millisecond' order by created_at limit ? for update skip locked), "
                    + "gone as (delete from tasks where id = any(array(select id from old)) and status = ? "
                    + "and updated_at < now() - ? * interval '1 millisecond' returning id), "
                    + "history as (delete from task_events where task_id = any(array(select id from gone))) "
                    + "select count(*) from gone")) {
                delete.setString(1, status.name());
                delete.setLong(2, age.toMillis());
                delete.setLong(3, age.toMillis());
                delete.setInt(4, limit);
                delete.setString(5, status.name());
                delete.setLong(6, age.toMillis());
                return count(delete);
            }
        });
    }

    /**
     * Deletes at most {@code limit} {@code dispatch_log} rows older than {@code age}, oldest first, in one fenced
     * statement.
     *
     * @return how many rows were deleted
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was deleted
     */
    public int deleteDispatchLogOlderThan(FenceToken fence, Duration age, int limit) {
        return database.fenced(fence, connection -> {
            try (PreparedStatement delete = connection.prepareStatement("with gone as (delete from dispatch_log "
                    + "where id = any(array(select id from dispatch_log where at < now() - ? * interval '1 millisecond' "
                    + "order by at limit ?)) returning id) select count(*) from gone")) {
                delete.setLong(1, age.toMillis());
                delete.setInt(2, limit);
                return count(delete);
            }
        });
    }

    private static int count(PreparedStatement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getInt(1);
        }
    }
}

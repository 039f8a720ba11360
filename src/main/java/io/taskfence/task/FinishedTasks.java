package io.taskfence.task;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskDatabase;

/**
 * Retention's deletes (DESIGN.md, "Configuration", "Retention"): finished tasks with their history, and old
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
     * Where a run of deletes of one status has got to, in the order it goes (oldest created first): the next
     * batch starts after this task, so a run reads each task created before the cut-off at most once, even one
     * that finished too recently to go (a long-delayed task). {@link #START} is before every task.
     */
    public record Position(OffsetDateTime createdAt, UUID id) {
        public static final Position START = new Position(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                new UUID(0, 0));
    }

    /** One batch's outcome: how many tasks went, and where the next batch starts (none: nothing is left to look at). */
    public record Deleted(int tasks, Optional<Position> next) {
    }

    /**
     * Deletes at most {@code limit} tasks in {@code status}, created after {@code after}, that have not changed
     * for {@code age} (their {@code updated_at}: when they finished), and their events, in one fenced statement.
     * A task finishes after it was created, so they are found through the index over (created_at, id), read from its
     * oldest end and bounded by the cut-off. Rows another transaction holds (a retry bringing one back) are skipped; a
     * task retried meanwhile is no longer in {@code status} when its row is locked and stays. Its events go with it
     * in the same statement (its rows in the side tables by the delete's trigger), and none can be added after: a
     * transition needs the row, which is gone.
     *
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was deleted
     */
    public Deleted deleteOlderThan(FenceToken fence, TaskStatus status, Duration age, Position after, int limit) {
        if (!FINISHED.contains(status)) {
            throw new IllegalArgumentException("only finished tasks are deleted, not " + status);
        }
        return database.fenced(fence, connection -> {
            try (PreparedStatement delete = connection.prepareStatement("with old as (select id, created_at from tasks "
                    + "where status = ? and created_at < now() - ? * interval '1 millisecond' and (created_at, id) > (?, ?) "
                    + "and updated_at < now() - ? * interval '1 millisecond' order by created_at, id limit ? "
                    + "for update skip locked), "
                    + "gone as (delete from tasks where id = any(array(select id from old)) and status = ? "
                    + "and updated_at < now() - ? * interval '1 millisecond' returning id), "
                    + "history as (delete from task_event_log where task_id = any(array(select id from gone))) "
                    + "select (select count(*) from gone), (select count(*) from old), last.created_at, last.id "
                    + "from (select 1) as one left join (select created_at, id from old order by created_at desc, id desc "
                    + "limit 1) as last on true")) {
                delete.setString(1, status.name());
                delete.setLong(2, age.toMillis());
                delete.setObject(3, after.createdAt());
                delete.setObject(4, after.id());
                delete.setLong(5, age.toMillis());
                delete.setInt(6, limit);
                delete.setString(7, status.name());
                delete.setLong(8, age.toMillis());
                try (ResultSet row = delete.executeQuery()) {
                    row.next();
                    boolean more = row.getInt(2) == limit;
                    return new Deleted(row.getInt(1), more
                            ? Optional.of(new Position(row.getObject(3, OffsetDateTime.class), row.getObject(4, UUID.class)))
                            : Optional.empty());
                }
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

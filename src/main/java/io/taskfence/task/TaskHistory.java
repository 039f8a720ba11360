package io.taskfence.task;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.TaskStoreException;

/**
 * Reads a task's history from the view {@code task_events} (migration V13): the events the triggers stored in each
 * transition's own transaction, and those of the happy path that the task's row implies (DESIGN.md, "History"); so
 * every committed status change is there, and none that did not commit.
 */
@ApplicationScoped
public class TaskHistory {

    /**
     * What every status change off the happy path sets beside the status: the row's implied happy-path events
     * ({@code enqueued_at}, {@code started_at}) are written to the log by the trigger {@code task_left_happy_path} from
     * the row's old values, and cleared here, in the same statement, so that the row does not imply them again.
     */
    public static final String IMPLIED_EVENTS_CLEARED = "enqueued_at = null, started_at = null";

    /** The most events one read returns: the newest ones. A task retried over and over could have many more. */
    public static final int MAX_EVENTS = 1000;

    private final DataSource db;

    TaskHistory(DataSource db) {
        this.db = db;
    }

    /**
     * The task's newest {@link #MAX_EVENTS} events, oldest first, if the task exists and is in {@code scope}; a task
     * out of scope is as absent as one that never was. A task from before history was recorded has none.
     */
    public Optional<List<TaskEvent>> events(UUID id, TaskScope scope) {
        // One statement: the task's existence (and scope) and its events come from the same snapshot.
        try (Connection connection = db.getConnection();
                PreparedStatement read = connection.prepareStatement("select event.* from tasks "
                        + "left join lateral (select id, at, from_status, to_status, attempt, worker, error, note "
                        + "from task_events where task_id = tasks.id order by id desc limit ?) as event on true "
                        + "where tasks.id = ? and (?::text is null or tasks.owner = ?) order by event.id")) {
            read.setInt(1, MAX_EVENTS);
            read.setObject(2, id);
            read.setString(3, scope.owner());
            read.setString(4, scope.owner());
            try (ResultSet row = read.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                List<TaskEvent> events = new ArrayList<>();
                do {
                    if (row.getObject("id") != null) {
                        String from = row.getString("from_status");
                        events.add(new TaskEvent(row.getTimestamp("at").toInstant(),
                                from == null ? null : TaskStatus.valueOf(from), TaskStatus.valueOf(row.getString("to_status")),
                                row.getInt("attempt"), row.getString("worker"), row.getString("error"),
                                row.getString("note")));
                    }
                } while (row.next());
                return Optional.of(events);
            }
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }
}

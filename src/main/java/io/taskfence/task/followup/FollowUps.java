package io.taskfence.task.followup;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;

import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.TasksEnded;
import io.taskfence.task.dependency.Dependents;
import io.taskfence.task.submit.JobSubmissions;
import io.taskfence.task.transition.TransitionMeters;

/**
 * The one seam to {@code task_follow_ups} (DESIGN.md, "Follow-ups"): what a task's end asks of other tasks, done
 * after that end in fenced transactions of bounded size. Each takes the next rows in turn (a task's own rows in the
 * order it ended), makes their callback tasks, and walks at most {@link #DEPENDENTS_AT_ONCE} of their dependents
 * ({@link Dependents}); a row is deleted in the transaction that finishes its work, so nothing is lost or done twice
 * across a crash or a change of leader. A row with dependents left goes to the back, so one large fan-in delays
 * another task's follow-ups by one chunk, not by its whole size.
 */
@ApplicationScoped
public class FollowUps {

    /** Dependents walked in one transaction, at most: bounds its locks and time whatever one task's fan-in. */
    public static final int DEPENDENTS_AT_ONCE = 1000;
    /** Rows taken in one transaction, at most. */
    static final int ROWS_AT_ONCE = 100;

    private static final String NEXT = "select id, task_id, ended_as, dependents, after_task, callback::text, "
            + "callback_max_attempts, owner, trace_parent from task_follow_ups f where not exists (select 1 "
            + "from task_follow_ups e where e.task_id = f.task_id and e.id < f.id) order by turn limit ? "
            + "for update skip locked";

    private final TaskDatabase database;
    private final Dependents dependents;
    private final JobSubmissions submissions;
    private final TransitionMeters meters;
    private final Event<TasksBecameDue> due;
    private final Event<TasksEnded> ended;

    FollowUps(TaskDatabase database, Dependents dependents, JobSubmissions submissions,
            TransitionMeters meters, Event<TasksBecameDue> due, Event<TasksEnded> ended) {
        this.database = database;
        this.dependents = dependents;
        this.submissions = submissions;
        this.meters = meters;
        this.due = due;
        this.ended = ended;
    }

    /** What one transaction did: rows finished, dependents released and cancelled, callbacks made; more to do. */
    public record Run(int finished, int released, int cancelled, int callbacks, boolean more) {
    }

    /** A row of {@code task_follow_ups} as taken. */
    private record Row(long id, UUID taskId, String endedAs, boolean dependents, UUID afterTask, String callback,
            int callbackMaxAttempts, String owner, String traceParent) {
    }

    /**
     * One fenced transaction over the next rows.
     *
     * @throws io.taskfence.store.StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public Run work(FenceToken fence) {
        List<TransitionMeters.Moved> moved = new ArrayList<>();
        List<UUID> cancelled = new ArrayList<>();
        Run run = database.fenced(fence, connection -> {
            List<Row> rows = next(connection);
            if (rows.isEmpty()) {
                return new Run(0, 0, 0, 0, false);
            }
            List<Row> callbacks = rows.stream().filter(row -> row.callback() != null).toList();
            if (!callbacks.isEmpty()) {
                moved.addAll(submissions.submitCallbacks(connection, callbacks.stream().map(row -> new JobSubmissions.Callback(
                        row.callback(), row.callbackMaxAttempts(), row.owner(), row.traceParent())).toList()));
            }
            List<Row> walking = rows.stream().filter(Row::dependents).toList();
            List<Dependents.Walk> walks = walking.stream()
                    .map(row -> new Dependents.Walk(row.taskId(), row.endedAs(), row.afterTask())).toList();
            Dependents.Walked walked = dependents.walk(connection, walks,
                    walks.isEmpty() ? 0 : Math.max(1, DEPENDENTS_AT_ONCE / walks.size()));
            moved.addAll(walked.moved());
            cancelled.addAll(walked.cancelled());
            List<Long> done = new ArrayList<>();
            List<Long> again = new ArrayList<>();
            List<UUID> after = new ArrayList<>();
            for (Row row : rows) {
                UUID last = row.dependents() ? walked.unfinished().get(row.taskId()) : null;
                if (last == null) {
                    done.add(row.id());
                } else {
                    again.add(row.id());
                    after.add(last);
                }
            }
            finish(connection, done, again, after);
            if (walked.released() > 0) {
                // Released tasks are due now: other replicas' dispatchers hear it at commit (this one's, below).
                try (PreparedStatement notify = connection.prepareStatement(
                        "select pg_notify('taskfence_due_' || md5(current_schema()), '')")) {
                    notify.execute();
                }
            }
            // A cancelled dependent's own dependents or callback are rows of this transaction's: a cascade goes on.
            return new Run(done.size(), walked.released(), walked.cancelled().size(), callbacks.size(),
                    !again.isEmpty() || rows.size() == ROWS_AT_ONCE || !walked.cancelled().isEmpty());
        });
        // Committed: database.fenced() returns only after the commit.
        meters.moved(moved);
        if (run.released() > 0 || run.callbacks() > 0) {
            due.fire(new TasksBecameDue());
        }
        if (!cancelled.isEmpty()) {
            ended.fire(new TasksEnded(cancelled));
        }
        return run;
    }

    /** How many rows wait, and the oldest one's age in seconds (0 when none): what the metrics show. */
    public Backlog backlog() {
        return database.inConnection(connection -> {
            try (PreparedStatement count = connection.prepareStatement("select count(*), coalesce(extract(epoch "
                    + "from now() - min(ended_at)), 0) from task_follow_ups");
                    ResultSet row = count.executeQuery()) {
                row.next();
                return new Backlog(row.getLong(1), row.getDouble(2));
            }
        });
    }

    /** Rows waiting in {@code task_follow_ups}, and how long the oldest one has. */
    public record Backlog(long rows, double oldestSeconds) {
    }

    private static List<Row> next(Connection connection) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (PreparedStatement next = connection.prepareStatement(NEXT)) {
            next.setInt(1, ROWS_AT_ONCE);
            try (ResultSet row = next.executeQuery()) {
                while (row.next()) {
                    rows.add(new Row(row.getLong(1), row.getObject(2, UUID.class), row.getString(3), row.getBoolean(4),
                            row.getObject(5, UUID.class), row.getString(6), row.getInt(7), row.getString(8),
                            row.getString(9)));
                }
            }
        }
        return rows;
    }

    /** Deletes the rows whose work is done; the others, with their callbacks made, go to the back with their cursor. */
    private static void finish(Connection connection, List<Long> done, List<Long> again, List<UUID> after)
            throws SQLException {
        if (!done.isEmpty()) {
            try (PreparedStatement delete = connection.prepareStatement(
                    "delete from task_follow_ups where id = any(?)")) {
                delete.setArray(1, connection.createArrayOf("int8", done.toArray()));
                delete.executeUpdate();
            }
        }
        if (!again.isEmpty()) {
            try (PreparedStatement update = connection.prepareStatement("update task_follow_ups f set callback = null, "
                    + "after_task = a.after_task, turn = nextval('task_follow_ups_turn') "
                    + "from unnest(?::bigint[], ?::uuid[]) as a(id, after_task) where f.id = a.id")) {
                update.setArray(1, connection.createArrayOf("int8", again.toArray()));
                update.setArray(2, connection.createArrayOf("uuid", after.toArray()));
                update.executeUpdate();
            }
        }
    }
}

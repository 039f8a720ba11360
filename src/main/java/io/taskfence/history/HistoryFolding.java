package io.taskfence.history;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;
import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskDatabase;

/**
 * Folds finished work into {@code work_history} (DESIGN.md, "History of work"), a bounded step at a time, each in a
 * fenced transaction of its own. Where a task's history is stored decides who reads it: the event log holds every move
 * off the happy path (walked by id), the row holds the happy path it is on (walked by creation; a task passed before
 * it ended is looked at again until it has). Nothing here runs on a task's path.
 */
@ApplicationScoped
public class HistoryFolding {

    private static final String PROGRESS = "select tasks_created_at, tasks_id, events_through, events_mark, "
            + "events_mark_at, hourly_before, now(), now() - ? * interval '1 millisecond' "
            + "from work_history_progress for update";
    /** A row whose happy path ended in SUCCEEDED: it holds that path's start and end, and no event does. */
    private static final String FOLDABLE = "(t.status = 'SUCCEEDED' and t.history_implied and t.started_at is not null)";
    /** A row's columns, from its type to whether it is foldable and, if so, its last retry by an operator if any. */
    private static final String ROW = "t.type, coalesce(t.owner, ''), t.status, t.run_at, t.started_at, t.updated_at, "
            + FOLDABLE + ", case when " + FOLDABLE + " then (select max(l.at) from task_event_log l where l.task_id = "
            + "t.id and l.from_status in ('DEAD', 'CANCELLED')) end";
    private static final String TASKS = "select t.id, t.created_at, " + ROW + " from tasks t where (t.created_at, t.id) "
            + "> (?, ?) and t.created_at < ? order by t.created_at, t.id limit ?";
    private static final String UNFINISHED = "insert into work_history_unfinished (task_id) select unnest(?::uuid[]) "
            + "on conflict (task_id) do nothing";
    private static final String RETRIED = "insert into work_history_unfinished (task_id, retry_at) values (?, ?) "
            + "on conflict (task_id) do update set retry_at = excluded.retry_at";
    private static final String TASKS_WALKED = "update work_history_progress set tasks_created_at = ?, tasks_id = ?";
    private static final String REVISIT = "select u.task_id, u.retry_at, t.id is null, " + ROW + " from (select task_id, "
            + "retry_at from work_history_unfinished where checked_at < ? order by checked_at limit ? for update) u "
            + "left join tasks t on t.id = u.task_id";
    private static final String UNFINISHED_DONE = "delete from work_history_unfinished where task_id = any(?)";
    private static final String UNFINISHED_CHECKED = "update work_history_unfinished set checked_at = now() "
            + "where task_id = any(?)";
    /** Each event with, for an end from PROCESSING, when that attempt started (an earlier event, written with it). */
    private static final String EVENTS = "select e.id, e.task_id, e.at, e.from_status, e.to_status, t.type, "
            + "coalesce(t.owner, ''), t.run_at, case when e.from_status = 'PROCESSING' and e.to_status in "
            + "('SUCCEEDED', 'DEAD', 'CANCELLED') then (select p.at from task_event_log p where p.task_id = e.task_id "
            + "and p.id < e.id and p.to_status = 'PROCESSING' order by p.id desc limit 1) end "
            + "from task_event_log e join tasks t on t.id = e.task_id "
            + "where e.id > ? and e.id <= ? and e.from_status is distinct from e.to_status";
    private static final String EVENTS_WALKED = "update work_history_progress set events_through = ?";
    /** The highest event id handed out: the identity's sequence (an id not committed yet is walked once settled). */
    private static final String LAST_EVENT = "coalesce(pg_sequence_last_value(pg_get_serial_sequence('task_event_log', "
            + "'id')::regclass), 0)";
    private static final String EVENTS_MARKED = "update work_history_progress set events_mark = " + LAST_EVENT
            + ", events_mark_at = now() returning events_mark";
    private static final String CAUGHT_UP = "update work_history_progress set folded_until = ?";
    private static final String FOLDED_UNTIL = "select folded_until from work_history_progress";
    /** Which steps have work: tasks to walk, tasks to look at again, events, an hour to fold, old rows to delete. */
    private static final String WORK = "select exists (select 1 from tasks t where (t.created_at, t.id) > "
            + "(p.tasks_created_at, p.tasks_id) and t.created_at < now() - ? * interval '1 millisecond'), "
            + "exists (select 1 from work_history_unfinished where checked_at < ?), "
            + "p.events_through < p.events_mark or " + LAST_EVENT + " > p.events_mark, "
            + "p.hourly_before < date_trunc('hour', now() - ? * interval '1 millisecond', 'UTC') and exists (select 1 "
            + "from work_history where bucket >= p.hourly_before), "
            + "exists (select 1 from work_history where bucket < now() - ? * interval '1 millisecond') "
            + "from work_history_progress p";

    private final TaskDatabase database;
    private final HistoryHours hours;
    private final Duration settle;
    private final int batchSize;

    HistoryFolding(TaskDatabase database, HistoryHours hours, TaskfenceConfig config) {
        this.database = database;
        this.hours = hours;
        this.settle = config.history().settle();
        this.batchSize = config.history().batchSize();
    }

    /** Where the job stands, read in a step's transaction. */
    private record Progress(Instant tasksCreatedAt, UUID tasksId, long eventsThrough, long eventsMark,
            Instant eventsMarkAt, Instant now, Instant settled, Fold fold) {
    }

    /** Which steps have work ({@link #WORK}'s columns). */
    private record Work(boolean tasks, boolean unfinished, boolean events, boolean hourToFold, boolean oldRows) {
    }

    /** One round of steps: whether any wrote, and whether any has more to do. */
    public record Round(boolean worked, boolean more) {
    }

    /**
     * One bounded step of each kind that has work, for a run that began at {@code runStart} (the database's clock). What
     * has work is read first, without a lock or a write: an idle round writes nothing, not even its fence.
     */
    public Round foldSome(FenceToken fence, Instant runStart) {
        Work work = database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(WORK)) {
                select.setLong(1, settle.toMillis());
                select.setTimestamp(2, Timestamp.from(runStart));
                select.setLong(3, HistoryHours.MINUTES_KEPT.toMillis());
                select.setLong(4, hours.kept().toMillis());
                try (ResultSet row = select.executeQuery()) {
                    row.next();
                    return new Work(row.getBoolean(1), row.getBoolean(2), row.getBoolean(3), row.getBoolean(4),
                            row.getBoolean(5));
                }
            }
        });
        boolean more = work.tasks() && walkTasks(fence);
        more |= work.unfinished() && revisitUnfinished(fence, runStart);
        more |= work.events() && walkEvents(fence);
        more |= work.hourToFold() && hours.foldOldestHour(fence);
        more |= work.oldRows() && hours.deleteOld(fence);
        boolean worked = work.tasks() || work.unfinished() || work.events() || work.hourToFold() || work.oldRows();
        return new Round(worked, more);
    }

    /**
     * After a run that caught up: the history is complete up to what it could read then. Written after a run that
     * worked, or when the last such mark is over a minute old: an idle replica writes once a minute at most.
     */
    public void caughtUp(FenceToken fence, Instant runStart, boolean worked) {
        Instant until = runStart.minus(settle);
        boolean stale = database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement(FOLDED_UNTIL)) {
                try (ResultSet row = select.executeQuery()) {
                    row.next();
                    Timestamp folded = row.getTimestamp(1);
                    return folded == null || folded.toInstant().isBefore(until.minus(Duration.ofMinutes(1)));
                }
            }
        });
        if (!worked && !stale) {
            return;
        }
        database.fenced(fence, connection -> {
            try (PreparedStatement update = connection.prepareStatement(CAUGHT_UP)) {
                update.setTimestamp(1, Timestamp.from(until));
                return update.executeUpdate();
            }
        });
    }

    /** The database's clock, which the job's cut-offs follow. */
    public Instant databaseNow() {
        return database.inConnection(connection -> {
            try (PreparedStatement now = connection.prepareStatement("select now()"); ResultSet row = now.executeQuery()) {
                row.next();
                return row.getTimestamp(1).toInstant();
            }
        });
    }

    private boolean walkTasks(FenceToken fence) {
        return database.fenced(fence, connection -> {
            Progress progress = progress(connection);
            List<UUID> unfinished = new ArrayList<>();
            int read = 0;
            Instant lastCreated = progress.tasksCreatedAt();
            UUID lastId = progress.tasksId();
            try (PreparedStatement tasks = connection.prepareStatement(TASKS)) {
                tasks.setTimestamp(1, Timestamp.from(lastCreated));
                tasks.setObject(2, lastId);
                tasks.setTimestamp(3, Timestamp.from(progress.settled()));
                tasks.setInt(4, batchSize);
                try (ResultSet row = tasks.executeQuery()) {
                    while (row.next()) {
                        read++;
                        lastId = row.getObject(1, UUID.class);
                        lastCreated = row.getTimestamp(2).toInstant();
                        if (row.getBoolean(9) && row.getTimestamp(10) == null) {
                            foldSucceeded(progress.fold(), row, 3);
                        } else if (!ended(row.getString(5))) {
                            unfinished.add(lastId);
                        }
                    }
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(UNFINISHED)) {
                insert.setArray(1, connection.createArrayOf("uuid", unfinished.toArray()));
                insert.executeUpdate();
            }
            try (PreparedStatement walked = connection.prepareStatement(TASKS_WALKED)) {
                walked.setTimestamp(1, Timestamp.from(lastCreated));
                walked.setObject(2, lastId);
                walked.executeUpdate();
            }
            HistoryRows.add(connection, progress.fold().tallies());
            return read == batchSize;
        });
    }

    private boolean revisitUnfinished(FenceToken fence, Instant runStart) {
        return database.fenced(fence, connection -> {
            Progress progress = progress(connection);
            List<UUID> done = new ArrayList<>();
            List<UUID> checked = new ArrayList<>();
            int read = 0;
            try (PreparedStatement revisit = connection.prepareStatement(REVISIT)) {
                revisit.setTimestamp(1, Timestamp.from(runStart));
                revisit.setInt(2, batchSize);
                try (ResultSet row = revisit.executeQuery()) {
                    while (row.next()) {
                        read++;
                        UUID id = row.getObject(1, UUID.class);
                        Timestamp retryAt = row.getTimestamp(2);
                        Timestamp lastRetry = row.getTimestamp(11);
                        if (row.getBoolean(3) || ended(row.getString(6))) {
                            done.add(id);
                            // A path that an operator's retry began is this row's only if it came from that retry.
                            if (row.getBoolean(10) && (lastRetry == null || lastRetry.equals(retryAt))) {
                                foldSucceeded(progress.fold(), row, 4);
                            }
                        } else {
                            checked.add(id);
                        }
                    }
                }
            }
            for (var change : List.of(Map.entry(UNFINISHED_DONE, done), Map.entry(UNFINISHED_CHECKED, checked))) {
                try (PreparedStatement update = connection.prepareStatement(change.getKey())) {
                    update.setArray(1, connection.createArrayOf("uuid", change.getValue().toArray()));
                    update.executeUpdate();
                }
            }
            HistoryRows.add(connection, progress.fold().tallies());
            return read == batchSize;
        });
    }

    private boolean walkEvents(FenceToken fence) {
        return database.fenced(fence, connection -> {
            Progress progress = progress(connection);
            if (progress.eventsThrough() >= progress.eventsMark()) {
                // Everything up to the mark is walked: a new mark, walked once it has settled.
                try (PreparedStatement mark = connection.prepareStatement(EVENTS_MARKED);
                        ResultSet row = mark.executeQuery()) {
                    row.next();
                    return row.getLong(1) > progress.eventsThrough();
                }
            }
            if (progress.eventsMarkAt().isAfter(progress.settled())) {
                return false;
            }
            // A window of ids, not a limit: the index over ids is a BRIN, which finds ranges but does not order.
            long through = Math.min(progress.eventsMark(), progress.eventsThrough() + batchSize);
            try (PreparedStatement events = connection.prepareStatement(EVENTS);
                    PreparedStatement retried = connection.prepareStatement(RETRIED)) {
                events.setLong(1, progress.eventsThrough());
                events.setLong(2, through);
                try (ResultSet row = events.executeQuery()) {
                    while (row.next()) {
                        foldEvent(progress.fold(), row, retried);
                    }
                }
                retried.executeBatch();
            }
            try (PreparedStatement walked = connection.prepareStatement(EVENTS_WALKED)) {
                walked.setLong(1, through);
                walked.executeUpdate();
            }
            HistoryRows.add(connection, progress.fold().tallies());
            return through < progress.eventsMark();
        });
    }

    /** An event: a start, a failed attempt, an end, or an operator's retry (whose happy path the row will hold). */
    private static void foldEvent(Fold fold, ResultSet row, PreparedStatement retried) throws SQLException {
        Instant at = row.getTimestamp(3).toInstant();
        String from = row.getString(4);
        String to = row.getString(5);
        String type = row.getString(6);
        String owner = row.getString(7);
        switch (to) {
            case "PROCESSING" -> fold.add(type, owner, at, tally -> tally.started++);
            case "FAILED" -> fold.add(type, owner, at, tally -> tally.failed++);
            case "SUCCEEDED", "DEAD", "CANCELLED" -> {
                Instant dueAt = row.getTimestamp(8).toInstant();
                Timestamp started = row.getTimestamp(9);
                fold.add(type, owner, at, tally -> {
                    tally.ended(to);
                    if (started != null) {
                        times(tally, dueAt, started.toInstant(), at);
                    }
                });
            }
            default -> {
            }
        }
        if (("DEAD".equals(from) || "CANCELLED".equals(from)) && !ended(to)) {
            retried.setObject(1, row.getObject(2, UUID.class));
            retried.setTimestamp(2, row.getTimestamp(3));
            retried.addBatch();
        }
    }

    /** The SUCCEEDED happy path a row holds, its columns from {@code first} on as {@link #ROW} selects them. */
    private static void foldSucceeded(Fold fold, ResultSet row, int first) throws SQLException {
        String type = row.getString(first);
        String owner = row.getString(first + 1);
        Instant dueAt = row.getTimestamp(first + 3).toInstant();
        Instant started = row.getTimestamp(first + 4).toInstant();
        Instant ended = row.getTimestamp(first + 5).toInstant();
        fold.add(type, owner, started, tally -> tally.started++);
        fold.add(type, owner, ended, tally -> {
            tally.succeeded++;
            times(tally, dueAt, started, ended);
        });
    }

    /** The wait (from due to start; not known if the task was due again later) and the run of an ending attempt. */
    private static void times(Tally tally, Instant dueAt, Instant started, Instant ended) {
        if (!dueAt.isAfter(started)) {
            tally.waits.add(Duration.between(dueAt, started).toMillis());
        }
        tally.runs.add(Duration.between(started, ended).toMillis());
    }

    private static boolean ended(String status) {
        return "SUCCEEDED".equals(status) || "DEAD".equals(status) || "CANCELLED".equals(status);
    }

    private Progress progress(Connection connection) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(PROGRESS)) {
            select.setLong(1, settle.toMillis());
            try (ResultSet row = select.executeQuery()) {
                row.next();
                Instant now = row.getTimestamp(7).toInstant();
                return new Progress(row.getTimestamp(1).toInstant(), row.getObject(2, UUID.class), row.getLong(3),
                        row.getLong(4), row.getTimestamp(5).toInstant(), now, row.getTimestamp(8).toInstant(),
                        new Fold(row.getTimestamp(6).toInstant(), now.minus(hours.kept())));
            }
        }
    }
}

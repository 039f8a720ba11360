package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.submit.NewTask.Dedupe;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.outcome.Submitted;

/**
 * Submissions with a dedupe key (DESIGN.md, "Submission", "Dedupe"): a key of an owner and type holds the task it made
 * while that task has not started (never dispatched: a task handed back, or polled again after a "later", has), and a submission with the key answers that task instead of making one, after
 * {@code ignore}-ing, {@code replace}-ing or {@code debounce}-ing it. Race-free across replicas: a transaction takes
 * its keys' advisory locks (in one order, before the owners' quota locks) and holds them to its commit, so a key is
 * looked up and its task made or changed by one transaction at a time; the task's row is locked too, so the
 * dispatcher either moves it first (the look finds it started) or finds it changed (a runAt moved later is not due).
 */
final class Dedupes {

    /**
     * What the keys of a submission's tasks found, per place: the unstarted task a key holds ({@link #held}), or the
     * earlier place of the same key in this submission whose task it answers ({@link #firstOfKey}); a place in
     * neither makes a task. {@code now} is the transaction's time, which a debounce's runAt counts from.
     */
    record Found(Map<Integer, Held> held, Map<Integer, Integer> firstOfKey, Instant now) {

        static final Found NONE = new Found(Map.of(), Map.of(), null);

        /** Whether the task at {@code i} makes no task of its own: it answers one its key holds. */
        boolean answered(int i) {
            return held.containsKey(i) || firstOfKey.containsKey(i);
        }
    }

    /** The unstarted task a key holds, and its debounce's bound (null: none). */
    record Held(UUID task, Instant runBy) {
    }

    private final TaskRows rows;

    Dedupes(TaskRows rows) {
        this.rows = rows;
    }

    /**
     * The keys of a submission's tasks, locked: the places whose key comes first in it ({@code places}), and those
     * that repeat an earlier place's key ({@code firstOfKey}: place → that earlier place).
     */
    record Keys(List<Integer> places, Map<Integer, Integer> firstOfKey) {

        static final Keys NONE = new Keys(List.of(), Map.of());

        boolean none() {
            return places.isEmpty();
        }
    }

    /**
     * Takes the advisory locks of the keys of {@code tasks} until the commit, in the order of their hashes (the locks'
     * own keys), so two submissions sharing keys wait for each other instead of deadlocking. The first locks a
     * transaction takes: the owners' quota locks come after them, the held tasks' rows after those ({@link #find}).
     */
    Keys lockKeys(Connection connection, List<NewTask> tasks) throws SQLException {
        List<Integer> places = new ArrayList<>();
        Map<String, Integer> firstPlace = new HashMap<>();
        Map<Integer, Integer> firstOfKey = new HashMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (tasks.get(i).dedupe() != null) {
                Integer first = firstPlace.putIfAbsent(lockName(tasks.get(i)), i);
                if (first == null) {
                    places.add(i);
                } else {
                    firstOfKey.put(i, first);
                }
            }
        }
        if (places.isEmpty()) {
            return Keys.NONE;
        }
        try (PreparedStatement lock = connection.prepareStatement("select count(pg_advisory_xact_lock(hash)) from "
                + "(select distinct hashtextextended(name, 0) as hash from unnest(?::text[]) as name order by hash) "
                + "as hashes")) {
            lock.setArray(1, connection.createArrayOf("text", firstPlace.keySet().toArray()));
            lock.execute();
        }
        return new Keys(places, firstOfKey);
    }

    /**
     * The unstarted tasks the locked {@code keys} hold, their rows locked ({@code for no key update}, in id order: a
     * dispatch batch moving one is waited for, and then it is found started). {@code now} is read after the locks,
     * so a debounce that waited for its key counts its period from when it got it.
     */
    Found find(Connection connection, List<NewTask> tasks, Keys keys) throws SQLException {
        if (keys.none()) {
            return Found.NONE;
        }
        List<Integer> places = keys.places();
        Map<Integer, Held> held = new HashMap<>();
        Instant now = null;
        try (PreparedStatement find = connection.prepareStatement("with found as (select wanted.place, d.task_id, "
                + "d.run_by from unnest(?::int[], ?::text[], ?::text[], ?::text[]) as wanted(place, owner, type, key) "
                + "left join task_dedupes d on d.owner = wanted.owner and d.type = wanted.type and d.key = wanted.key), "
                + "unstarted as (select id from tasks where id in (select task_id from found) "
                + "and status in ('PENDING', 'WAITING') and enqueues = 0 order by id for no key update) "
                + "select found.place, unstarted.id, found.run_by, clock_timestamp() from found "
                + "left join unstarted on unstarted.id = found.task_id")) {
            find.setArray(1, connection.createArrayOf("int4", places.toArray()));
            find.setArray(2, connection.createArrayOf("text", places.stream().map(i -> owner(tasks.get(i))).toArray()));
            find.setArray(3, connection.createArrayOf("text", places.stream().map(i -> tasks.get(i).type()).toArray()));
            find.setArray(4, connection.createArrayOf("text", places.stream()
                    .map(i -> tasks.get(i).dedupe().key()).toArray()));
            try (ResultSet row = find.executeQuery()) {
                while (row.next()) {
                    now = row.getTimestamp(4).toInstant();
                    UUID task = row.getObject(2, UUID.class);
                    if (task != null) {
                        held.put(row.getInt(1), new Held(task, TaskRows.instant(row, "run_by")));
                    }
                }
            }
        }
        return new Found(held, keys.firstOfKey(), now);
    }

    /**
     * The task as its first submission with the key makes it: a debounce's runs at now + period, never past its
     * bound (first submission + maxWait).
     */
    static NewTask asMade(NewTask task, Instant now) {
        Dedupe dedupe = task.dedupe();
        if (dedupe == null || dedupe.mode() != Dedupe.Mode.DEBOUNCE) {
            return task;
        }
        Instant runAt = now.plus(dedupe.period());
        return task.dueAt(dedupe.maxWait() == null ? runAt : min(runAt, now.plus(dedupe.maxWait())));
    }

    /**
     * Answers the tasks whose keys hold a task, in submission order: each ignores, replaces or debounces it, and
     * records what it changed in the task's history. A place whose key's first place in this submission made a task
     * answers that task; one whose first place was refused is refused alike (same owner, same type, same room).
     * Before that, the keys of the tasks made are written ({@code made}: the outcomes of this submission).
     */
    void answer(Connection connection, List<NewTask> tasks, Found found, Submitted[] outcomes) throws SQLException {
        recordMade(connection, tasks, found, outcomes);
        for (int i = 0; i < tasks.size(); i++) {
            if (!found.answered(i) || outcomes[i] != null) {
                continue;
            }
            Held held = found.held().get(i);
            if (held == null) {
                int first = found.firstOfKey().get(i);
                if (!(outcomes[first] instanceof Submission made)) {
                    outcomes[i] = outcomes[first];
                    continue;
                }
                held = found.held().containsKey(first) ? found.held().get(first)
                        : new Held(made.task().id(), runBy(tasks.get(first), found.now()));
            }
            outcomes[i] = new Submission(change(connection, tasks.get(i), held, found.now()), false);
        }
    }

    /** Writes the keys of the tasks this submission made, each holding its task from now on. */
    private void recordMade(Connection connection, List<NewTask> tasks, Found found, Submitted[] outcomes)
            throws SQLException {
        List<Integer> made = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (tasks.get(i).dedupe() != null && !found.answered(i) && outcomes[i] instanceof Submission submission
                    && submission.created()) {
                made.add(i);
            }
        }
        if (made.isEmpty()) {
            return;
        }
        try (PreparedStatement record = connection.prepareStatement("insert into task_dedupes (owner, type, key, "
                + "task_id, run_by) select * from unnest(?::text[], ?::text[], ?::text[], ?::uuid[], ?::timestamptz[]) "
                + "on conflict (owner, type, key) do update set task_id = excluded.task_id, run_by = excluded.run_by")) {
            record.setArray(1, connection.createArrayOf("text", made.stream().map(i -> owner(tasks.get(i))).toArray()));
            record.setArray(2, connection.createArrayOf("text", made.stream().map(i -> tasks.get(i).type()).toArray()));
            record.setArray(3, connection.createArrayOf("text", made.stream()
                    .map(i -> tasks.get(i).dedupe().key()).toArray()));
            record.setArray(4, connection.createArrayOf("uuid", made.stream()
                    .map(i -> ((Submission) outcomes[i]).task().id()).toArray()));
            // As ISO-8601 text: inside an array the driver writes a Timestamp without its offset.
            record.setArray(5, connection.createArrayOf("text", made.stream()
                    .map(i -> runBy(tasks.get(i), found.now())).map(at -> at == null ? null : at.toString()).toArray()));
            record.executeUpdate();
        }
    }

    /**
     * The held task as {@code task}'s submission leaves it at {@code now}; what changed is in its history. A debounce
     * with a maxWait gives a task its key holds without a bound one from now on (a task made by a replace, or by a
     * debounce without one): no stream of debounces holds a task back for ever.
     */
    private Task change(Connection connection, NewTask task, Held held, Instant now) throws SQLException {
        Dedupe dedupe = task.dedupe();
        if (dedupe.mode() == Dedupe.Mode.IGNORE) {
            try (PreparedStatement read = connection.prepareStatement("select " + TaskRows.COLUMNS
                    + " from tasks where id = ?")) {
                read.setObject(1, held.task());
                return rows.tasks(read).getFirst();
            }
        }
        boolean replace = dedupe.mode() == Dedupe.Mode.REPLACE;
        Instant runBy = held.runBy();
        if (!replace && runBy == null && dedupe.maxWait() != null) {
            runBy = now.plus(dedupe.maxWait());
            try (PreparedStatement bound = connection.prepareStatement(
                    "update task_dedupes set run_by = ? where task_id = ? and run_by is null")) {
                bound.setTimestamp(1, timestamp(runBy));
                bound.setObject(2, held.task());
                bound.executeUpdate();
            }
        }
        // A replace takes the submission's runAt (now when absent) and priority; a debounce keeps the priority and
        // moves runAt to now + period, never past its bound.
        try (PreparedStatement change = connection.prepareStatement("with changed as (update tasks set "
                + "payload = ?::jsonb, run_at = case when ? then coalesce(?::timestamptz, ?::timestamptz) "
                + "else least(?::timestamptz + ? * interval '1 millisecond', coalesce(?::timestamptz, 'infinity')) end, "
                + "priority = case when ? then ? else priority end, updated_at = now() where id = ? "
                + "returning " + TaskRows.COLUMNS + "), "
                + "logged as (insert into task_event_log (task_id, at, from_status, to_status, attempt, note) "
                + "select id, now(), status, status, attempt, ? || ' (dedupe key ' || ? || '): runAt ' "
                + "|| to_char(run_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') from changed) "
                + "select * from changed")) {
            change.setString(1, rows.write(task.payload()));
            change.setBoolean(2, replace);
            change.setTimestamp(3, timestamp(task.runAt()));
            change.setTimestamp(4, timestamp(now));
            change.setTimestamp(5, timestamp(now));
            change.setLong(6, dedupe.period() == null ? 0 : dedupe.period().toMillis());
            change.setTimestamp(7, timestamp(runBy));
            change.setBoolean(8, replace);
            change.setInt(9, task.priority());
            change.setObject(10, held.task());
            change.setString(11, replace ? "replaced" : "debounced");
            change.setString(12, dedupe.key());
            return rows.tasks(change).getFirst();
        }
    }

    /** A debounce's bound: first submission + maxWait; null for none. */
    private static Instant runBy(NewTask first, Instant now) {
        Dedupe dedupe = first.dedupe();
        return dedupe.mode() == Dedupe.Mode.DEBOUNCE && dedupe.maxWait() != null ? now.plus(dedupe.maxWait()) : null;
    }

    /** The name of the task's key's advisory lock: its owner, type and key. */
    private static String lockName(NewTask task) {
        return "taskfence.dedupe/" + owner(task) + "/" + task.type() + "/" + task.dedupe().key();
    }

    private static String owner(NewTask task) {
        return Objects.requireNonNullElse(task.owner(), "");
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    private static Timestamp timestamp(Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }
}

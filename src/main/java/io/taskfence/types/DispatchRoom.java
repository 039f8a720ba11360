package io.taskfence.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one dispatch batch may take of each task type, read inside the batch's fenced transaction: none of a
 * paused type; of a limited type, what its limits leave; of a remote type, no more than its stream has room for. Dispatch is the only writer that adds to a type's
 * in-flight count or to its queued-plus-started count (one holder at a time, its transactions serialised by the
 * fence row's lock); a claim moves a task from queued to started, and everything else only takes away (workers
 * finish tasks, recovery and cancels move them back), so a count read here can only be too high by the time
 * of the commit, never too low, and the batch stays within the limits.
 *
 * @param at the batch's time on PostgreSQL's clock, read after the fence row was locked, so that it rises from
 *        batch to batch; the rate windows end at it
 * @param excluded the types the batch's general select leaves out: paused, limited and remote ones
 * @param room how many tasks each limited or remote, unpaused type with room left may have in this batch
 * @param general whether the batch's general select (of the types neither limited nor remote) runs
 */
public record DispatchRoom(OffsetDateTime at, Set<String> excluded, Map<String, Integer> room, boolean general) {

    /** This room for {@code types} alone: no general select, and of the limited ones only those. */
    public DispatchRoom only(Set<String> types) {
        Map<String, Integer> kept = new TreeMap<>(room);
        kept.keySet().retainAll(types);
        return new DispatchRoom(at, excluded, kept, false);
    }

    /** Rows older than the longest window (a minute) count for no type, nor group, any more. */
    private static final String PRUNE = "delete from %s where at < ?::timestamptz - interval '1 minute'";

    /**
     * Reads the paused types and the limited types' counts. The share lock on {@code paused_types} makes a
     * pause wait for a batch already reading it and every later batch see it: once a pause has answered, no
     * task of the type is enqueued.
     *
     * @param streamRoom for each remote type, how many more tasks its stream may hold
     */
    public static DispatchRoom read(Connection connection, TypeLimits limits, Map<String, Integer> streamRoom)
            throws SQLException {
        Set<String> excluded = new TreeSet<>();
        OffsetDateTime at;
        try (Statement statement = connection.createStatement()) {
            statement.execute("lock table paused_types in share mode");
            try (ResultSet row = statement.executeQuery("select type from paused_types")) {
                while (row.next()) {
                    excluded.add(row.getString(1));
                }
            }
            try (ResultSet row = statement.executeQuery("select clock_timestamp()")) {
                row.next();
                at = row.getObject(1, OffsetDateTime.class);
            }
        }
        Map<String, TypeLimit> limited = limits.limited();
        Map<String, Integer> room = new TreeMap<>();
        if (limited.isEmpty() && streamRoom.isEmpty()) {
            return new DispatchRoom(at, excluded, room, true);
        }
        Set<String> paused = Set.copyOf(excluded);
        Map<String, Long> inFlight = limited.isEmpty() ? Map.of() : inFlight(connection, limited.keySet());
        Map<String, Long> started = started(connection, limited, at);
        Set<String> selectedAlone = new TreeSet<>(limited.keySet());
        selectedAlone.addAll(streamRoom.keySet());
        for (String type : selectedAlone) {
            TypeLimit limit = limits.of(type);
            excluded.add(type);
            long left = streamRoom.getOrDefault(type, Integer.MAX_VALUE);
            if (limit.maxConcurrency().isPresent()) {
                left = Math.min(left, limit.maxConcurrency().getAsInt() - inFlight.getOrDefault(type, 0L));
            }
            if (limit.rate().isPresent()) {
                left = Math.min(left, limit.rate().get().starts() - started.getOrDefault(type, 0L));
            }
            if (left > 0 && !paused.contains(type)) {
                room.put(type, (int) Math.min(Integer.MAX_VALUE, left));
            }
        }
        return new DispatchRoom(at, excluded, room, true);
    }

    /**
     * Tasks of each type ENQUEUED or PROCESSING. Counting ENQUEUED too is what makes the limit hold: a task
     * enqueued now may be claimed at any moment, and a worker claims without looking at other tasks.
     */
    static Map<String, Long> inFlight(Connection connection, Set<String> types) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement("select tasks.type, count(*) from tasks_in_flight "
                + "join tasks on id = task_id where tasks_in_flight.type = any(?) and status in ('ENQUEUED', 'PROCESSING') "
                + "group by tasks.type")) {
            count.setArray(1, connection.createArrayOf("text", types.toArray()));
            return countsByType(count);
        }
    }

    /**
     * For each rate-limited type, its tasks started (claimed) in its window ending at {@code at} (excluded:
     * {@code at - window}) plus those ENQUEUED now, which may start at any moment. Read in one statement, so in
     * one snapshot: a claim committing meanwhile moves a task from one term to the other, never out of both.
     * That sum is what the rate leaves no room beyond: every task that starts in a window was, at the last
     * batch before it that enqueued one of them, started in that batch's window, queued, or in the batch.
     */
    static Map<String, Long> started(Connection connection, Map<String, TypeLimit> limited, OffsetDateTime at)
            throws SQLException {
        var rated = limited.values().stream().filter(limit -> limit.rate().isPresent()).toList();
        if (rated.isEmpty()) {
            return new HashMap<>();
        }
        try (PreparedStatement sum = connection.prepareStatement("select w.type, "
                + "(select count(*) from tasks_in_flight f join tasks t on t.id = f.task_id where f.type = w.type "
                + "and t.status = 'ENQUEUED') "
                + "+ (select coalesce(sum(s.tasks), 0) from type_starts s where s.type = w.type "
                + "and s.at > ?::timestamptz - w.window_ms * interval '1 millisecond') "
                + "from unnest(?::text[], ?::bigint[]) as w(type, window_ms)")) {
            sum.setObject(1, at);
            sum.setArray(2, connection.createArrayOf("text", rated.stream().map(TypeLimit::type).toArray()));
            sum.setArray(3, connection.createArrayOf("int8",
                    rated.stream().map(limit -> limit.rate().get().window().toMillis()).toArray()));
            return countsByType(sum);
        }
    }

    /**
     * For each type with {@code max-per-key}, its concurrency groups at that limit: with as many tasks ENQUEUED,
     * PROCESSING or waiting again after they were (the due rows' {@code holds_place}) as it allows. In one
     * statement, so one snapshot.
     */
    static Map<String, Long> groupsAtLimit(Connection connection, Map<String, TypeLimit> limited) throws SQLException {
        var perKey = limited.values().stream().filter(limit -> limit.maxPerKey().isPresent()).toList();
        if (perKey.isEmpty()) {
            return new HashMap<>();
        }
        try (PreparedStatement count = connection.prepareStatement("select w.type, (select count(*) from (select 1 "
                + "from (select f.owner, f.concurrency_key from tasks_in_flight f join tasks t on t.id = f.task_id "
                + "where f.type = w.type and f.concurrency_key is not null and t.status in ('ENQUEUED', 'PROCESSING') "
                + "union all select d.owner, d.concurrency_key from tasks_due d where d.type = w.type "
                + "and d.concurrency_key is not null and d.holds_place) as busy group by owner, concurrency_key "
                + "having count(*) >= w.max_per_key) as full_groups) "
                + "from unnest(?::text[], ?::int[]) as w(type, max_per_key)")) {
            count.setArray(1, connection.createArrayOf("text", perKey.stream().map(TypeLimit::type).toArray()));
            count.setArray(2, connection.createArrayOf("int4",
                    perKey.stream().map(limit -> limit.maxPerKey().getAsInt()).toArray()));
            return countsByType(count);
        }
    }

    /**
     * For each type with {@code rate-per-key}, its concurrency groups the rate holds back at {@code at}: those with due
     * tasks whose starts in the window and ENQUEUED tasks together reach the rate. Found from the window's starts and
     * the tasks in flight, so its cost follows those, not the backlog.
     */
    static Map<String, Long> groupsRateLimited(Connection connection, Map<String, TypeLimit> limited,
            OffsetDateTime at) throws SQLException {
        var rated = limited.values().stream().filter(limit -> limit.ratePerKey().isPresent()).toList();
        if (rated.isEmpty()) {
            return new HashMap<>();
        }
        try (PreparedStatement count = connection.prepareStatement("select w.type, (select count(*) from (select 1 "
                + "from (select s.owner, s.concurrency_key, s.tasks from group_starts s where s.type = w.type "
                + "and s.at > ?::timestamptz - w.window_ms * interval '1 millisecond' "
                + "union all select f.owner, f.concurrency_key, 1 from tasks_in_flight f join tasks t on t.id = f.task_id "
                + "where f.type = w.type and f.concurrency_key is not null and t.status = 'ENQUEUED') as used "
                + "group by used.owner, used.concurrency_key having sum(used.tasks) >= w.starts "
                + "and exists (select 1 from tasks_due d where d.type = w.type and d.owner = used.owner "
                + "and d.concurrency_key = used.concurrency_key and d.run_at <= ?::timestamptz)) as held_back) "
                + "from unnest(?::text[], ?::bigint[], ?::int[]) as w(type, window_ms, starts)")) {
            count.setObject(1, at);
            count.setObject(2, at);
            count.setArray(3, connection.createArrayOf("text", rated.stream().map(TypeLimit::type).toArray()));
            count.setArray(4, connection.createArrayOf("int8",
                    rated.stream().map(limit -> limit.ratePerKey().get().window().toMillis()).toArray()));
            count.setArray(5, connection.createArrayOf("int4",
                    rated.stream().map(limit -> limit.ratePerKey().get().starts()).toArray()));
            return countsByType(count);
        }
    }

    /**
     * Forgets starts past every window, of the types with a rate and of the groups of those with a rate per key: the
     * claims record them ({@link io.taskfence.task.transition.AttemptTransitions#claim}), dispatch prunes.
     */
    public void forgetOldStarts(Connection connection, TypeLimits limits) throws SQLException {
        for (String table : limits.rated().isEmpty() ? List.of("group_starts")
                : limits.ratedPerKey().isEmpty() ? List.of("type_starts") : List.of("type_starts", "group_starts")) {
            try (PreparedStatement prune = connection.prepareStatement(PRUNE.formatted(table))) {
                prune.setObject(1, at);
                prune.executeUpdate();
            }
        }
    }

    /** The rows of a statement that selects a type and a count, as a map. */
    private static Map<String, Long> countsByType(PreparedStatement statement) throws SQLException {
        Map<String, Long> counts = new HashMap<>();
        try (ResultSet row = statement.executeQuery()) {
            while (row.next()) {
                counts.put(row.getString(1), row.getLong(2));
            }
        }
        return counts;
    }
}

package io.taskfence.task.transition;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.taskfence.types.DispatchRoom;
import io.taskfence.types.Rate;
import io.taskfence.types.TypeLimit;
import io.taskfence.types.TypeLimits;

/**
 * The CTEs that choose a dispatch batch's due rows (DESIGN.md, "Dispatch"), ending in {@code due (task_id, owner,
 * priority, run_at, turn, rotation)}, with their parameters in the order they appear. Not locked: only one
 * dispatcher runs at a time (the fence row's lock serialises their transactions), and the batch's UPDATE locks each
 * task it moves and checks its status and run_at again; a cancel that commits meanwhile has deleted its task's row,
 * and the update moves nothing.
 *
 * <p>The rows are shared between owners ("Fair shares"): each owner's first rows by {@code priority desc, run_at}
 * from the index {@code tasks_due_owner_order}, numbered; an owner of weight {@code w} has its rows 1 to w in turn 0,
 * w+1 to 2w in turn 1, and so on; whole turns go first, and within a turn the owners in a rotation. A limited type
 * ({@link DispatchRoom}) has a select of its own, limited to its room, so that a type at its limit never takes the
 * batch's places from the others; its rows and the general select's take their turns again among themselves.
 */
final class DueSelection {

    /**
     * Every owner with a row in {@code tasks_due}, by a skip scan of {@code tasks_due_owner_order}: an index probe per
     * owner, however many tasks each has (the scan ends with a null row, which the selects skip).
     */
    private static final String OWNERS = "owners as ((select owner from tasks_due order by owner limit 1) union all "
            + "select (select d.owner from tasks_due d where d.owner > owners.owner order by d.owner limit 1) "
            + "from owners where owners.owner is not null)";

    private final Connection connection;
    private final StringBuilder sql = new StringBuilder();
    private final List<Object> parameters = new ArrayList<>();

    private DueSelection(Connection connection) {
        this.connection = connection;
    }

    /**
     * The CTEs of a batch of at most {@code limit}, after {@code with recursive}.
     *
     * @param weights the owners whose weight is not 1, with their weights
     * @param shift how far to turn the owners' rotation: one more each batch, so that when a batch has fewer
     *        places than owners (a type at its limit has room for one or two) each comes first one batch in so many
     * @param groupCursors for each type with {@code max-per-key}, each owner's concurrency key after which its walk
     *        of groups starts ({@link #groupRows})
     */
    static DueSelection of(Connection connection, DispatchRoom room, TypeLimits limits, Map<String, Integer> weights,
            long shift, int limit, Map<String, Map<String, String>> groupCursors) throws SQLException {
        DueSelection selection = new DueSelection(connection);
        selection.add(OWNERS + ", weights as (select * from unnest(?::text[], ?::int[]) as w(owner, weight)), ",
                selection.array("text", weights.keySet()), selection.array("int4", weights.values()));
        selection.add("general as (");
        int generalLimit = room.general() ? limit : 0;
        selection.inTurns(shift, generalLimit, () -> selection.ownersTurns(() -> selection.firstRowsOfEachOwner(
                "type <> all(?)", selection.array("text", room.excluded()), generalLimit)));
        selection.add(")");
        List<String> limitedTypes = List.copyOf(room.room().keySet());
        for (int i = 0; i < limitedTypes.size(); i++) {
            String type = limitedTypes.get(i);
            int typeRoom = Math.min(limit, room.room().get(type));
            TypeLimit typeLimit = limits.of(type);
            boolean grouped = typeLimit.grouped();
            if (grouped) {
                selection.add(", ");
                selection.groupRows(i, typeLimit, room.at(), typeRoom, groupCursors.getOrDefault(type, Map.of()));
            }
            selection.add(", limited" + i + " as (");
            int n = i;
            selection.inTurns(shift, typeRoom, () -> selection.ownersTurns(() -> {
                if (grouped) {
                    selection.firstRowsOfEachOwner("type = ? and concurrency_key is null", type, typeRoom);
                    selection.add(" union all select task_id, owner, priority, run_at from grouped" + n);
                } else {
                    selection.firstRowsOfEachOwner("type = ?", type, typeRoom);
                }
            }));
            selection.add(")");
        }
        if (limitedTypes.isEmpty()) {
            selection.add(", due as (select task_id, owner, priority, run_at, turn, rotation from general)");
        } else {
            selection.add(", due as (");
            selection.inTurns(shift, limit, () -> selection.ownersTurns(() -> {
                selection.add("select task_id, owner, priority, run_at from general");
                for (int i = 0; i < limitedTypes.size(); i++) {
                    selection.add(" union all select task_id, owner, priority, run_at from limited" + i);
                }
            }));
            selection.add(")");
        }
        return selection;
    }

    /** The SQL text: CTEs separated by commas, the last one {@code due}. */
    String sql() {
        return sql.toString();
    }

    /** Binds the parameters from {@code first} on; returns the next parameter's index. */
    int bind(PreparedStatement statement, int first) throws SQLException {
        int index = first;
        for (Object parameter : parameters) {
            statement.setObject(index++, parameter);
        }
        return index;
    }

    private interface Part {
        void add() throws SQLException;
    }

    private void add(String text, Object... values) {
        long marks = text.chars().filter(c -> c == '?').count();
        if (marks != values.length) {
            throw new IllegalArgumentException(marks + " parameters in '" + text + "', " + values.length + " values");
        }
        sql.append(text);
        parameters.addAll(List.of(values));
    }

    private Array array(String type, Collection<?> values) throws SQLException {
        return connection.createArrayOf(type, values.toArray());
    }

    /**
     * The order of turns over rows numbered into {@code turn} per owner: whole turns first; within a turn the owners
     * in their rotation (the owners these rows have, in name order, shifted), then priority and run_at.
     */
    private void inTurns(long shift, int limit, Part rows) throws SQLException {
        add("select task_id, owner, priority, run_at, turn, (owner_no + ?) % max(owner_no) over () as rotation "
                + "from (select candidates.*, dense_rank() over (order by owner) as owner_no from (", shift);
        rows.add();
        add(") as candidates) as numbered order by turn, rotation, priority desc, run_at limit ?", limit);
    }

    /** The rows ranked within their owner by priority and run_at, numbered into the owner's turns by its weight. */
    private void ownersTurns(Part rows) throws SQLException {
        add("select ranked.*, (ranked.rank - 1) / coalesce((select weight from weights w where w.owner = ranked.owner), "
                + "1) as turn from (select task_id, owner, priority, run_at, row_number() over (partition by owner "
                + "order by priority desc, run_at) as rank from (");
        rows.add();
        add(") as any_rows) as ranked");
    }

    /**
     * Each owner's first {@code limit} due rows that meet {@code condition}, by {@code priority desc, run_at}: a walk
     * of {@code tasks_due_owner_order} per owner that stops at its limit.
     */
    private void firstRowsOfEachOwner(String condition, Object conditionValue, int limit) {
        add("select first_rows.* from owners cross join lateral (select task_id, owner, priority, run_at from tasks_due d "
                + "where d.owner = owners.owner and run_at <= now() and " + condition
                + " order by priority desc, run_at limit ?) as first_rows", conditionValue, limit);
    }

    /**
     * {@code grouped<i>}: the due rows of a type with {@code max-per-key} or {@code rate-per-key} that may go now
     * (DESIGN.md, "Dispatch", "Concurrency groups"), at most {@code limit} an owner. Each owner's groups (concurrency
     * keys) are walked in key order by a skip scan of {@code tasks_due_groups}, starting after the owner's cursor (the
     * last key a batch served) and wrapping around, lazily: the walk stops once the owner has {@code limit} rows, and
     * the next batch goes on from where this one served, so that no group waits behind others that keep getting room.
     * A group's room is the least its limits leave: {@code max-per-key} less its tasks ENQUEUED or PROCESSING (an index
     * probe of {@code tasks_in_flight_groups}) and those that were and wait again ({@code holds_place}), which go first;
     * {@code rate-per-key} less its starts in the window ending at {@code at} ({@code group_starts}) and its tasks
     * ENQUEUED, which may start at any moment; then its due tasks in submission order ({@code key_order}). A full group
     * costs two index probes. One statement reads it all, so one snapshot: a task that moves from PROCESSING to FAILED
     * meanwhile is counted once, never in neither.
     */
    private void groupRows(int i, TypeLimit limit, OffsetDateTime at, int most, Map<String, String> cursors)
            throws SQLException {
        String type = limit.type();
        String nextGroup = "select next.owner, next.concurrency_key from %1$s cross join lateral (select d.owner, "
                + "d.concurrency_key from tasks_due d where d.type = ? and d.owner = %1$s.owner "
                + "and d.concurrency_key > %1$s.concurrency_key%2$s order by d.concurrency_key limit 1) as next";
        String inFlight = "(select count(*) from tasks_in_flight f join tasks t on t.id = f.task_id where f.type = ? "
                + "and f.owner = g.owner and f.concurrency_key = g.concurrency_key and t.status in (%s))";
        add("grouped" + i + " as (select owned.* from owners cross join lateral (select coalesce((select c.key "
                + "from unnest(?::text[], ?::text[]) as c(owner, key) where c.owner = owners.owner), '') collate \"C\" as key) "
                + "as cursor cross join lateral (with recursive after_cursor as ((select owner, concurrency_key "
                + "from tasks_due where type = ? and owner = owners.owner and concurrency_key > cursor.key "
                + "order by concurrency_key limit 1) union all " + nextGroup.formatted("after_cursor", "") + "), "
                + "up_to_cursor as ((select owner, concurrency_key from tasks_due where type = ? "
                + "and owner = owners.owner and concurrency_key is not null and concurrency_key <= cursor.key "
                + "order by concurrency_key limit 1) union all "
                + nextGroup.formatted("up_to_cursor", " and d.concurrency_key <= cursor.key") + "), "
                + "groups as (select * from after_cursor union all select * from up_to_cursor) "
                + "select places.task_id, places.owner, places.priority, places.run_at from groups g "
                + "cross join lateral (select least(",
                array("text", cursors.keySet()), array("text", cursors.values()), type, type, type, type);
        if (limit.maxPerKey().isPresent()) {
            add("? - " + inFlight.formatted("'ENQUEUED', 'PROCESSING'"), limit.maxPerKey().getAsInt(), type);
        }
        if (limit.ratePerKey().isPresent()) {
            Rate rate = limit.ratePerKey().get();
            add((limit.maxPerKey().isPresent() ? ", " : "") + "? - " + inFlight.formatted("'ENQUEUED'")
                    + " - (select coalesce(sum(s.tasks), 0) from group_starts s where s.type = ? and s.owner = g.owner "
                    + "and s.concurrency_key = g.concurrency_key and s.at > ?::timestamptz - ? * interval '1 millisecond')",
                    rate.starts(), type, type, at, rate.window().toMillis());
        }
        // Only max-per-key makes tasks hold places; a rate holds none for tasks not due yet.
        add(") as free) as running cross join lateral (select running.free, case when running.free > 0 and ? then "
                + "(select count(*) from tasks_due h where h.type = ? and h.owner = g.owner "
                + "and h.concurrency_key = g.concurrency_key and h.holds_place) else 0 end as holding) as room "
                + "cross join lateral (select group_rows.*, row_number() over (partition by holds_place order by key_order) "
                + "as place from (select task_id, owner, priority, run_at, holds_place, key_order from tasks_due d "
                + "where d.type = ? and d.owner = g.owner and d.concurrency_key = g.concurrency_key and d.run_at <= now() "
                + "and room.free > 0 order by d.holds_place desc, d.key_order limit greatest(room.free, 0)) as group_rows) "
                + "as places where places.place <= case when places.holds_place then room.free "
                + "else room.free - room.holding end limit ?) as owned)",
                limit.maxPerKey().isPresent(), type, type, most);
    }
}

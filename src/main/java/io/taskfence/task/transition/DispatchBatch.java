package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.DUE;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;
import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TaskStatus;
import io.taskfence.types.DispatchRoom;
import io.taskfence.types.TypeLimits;

/**
 * The dispatcher's transition: due PENDING and FAILED tasks → ENQUEUED, a batch at a time, in one fenced
 * transaction (DESIGN.md, "Fencing (PostgreSQL)"), so that only the current lock holder moves tasks.
 */
@ApplicationScoped
public class DispatchBatch {

    /**
     * Every owner with a row in {@code tasks_due}, by a skip scan of {@code tasks_due_owner_order}: an index probe per
     * owner, however many tasks each has (the scan ends with a null row, which the selects skip). Takes the weights'
     * owners and weights.
     */
    private static final String OWNERS = "owners as ((select owner from tasks_due order by owner limit 1) union all "
            + "select (select d.owner from tasks_due d where d.owner > owners.owner order by d.owner limit 1) "
            + "from owners where owners.owner is not null), "
            + "weights as (select * from unnest(?::text[], ?::int[]) as w(owner, weight))";

    /**
     * The order of turns, over rows numbered into {@code turn} per owner ({@code candidates}): whole turns first;
     * within a turn the owners in their {@code rotation}, the owners these rows have in name order shifted by one
     * more each batch, so that when a batch has fewer places than owners (a type at its limit has room for one or
     * two) each comes first one batch in so many. Takes the shift, then the limit.
     */
    private static String inTurns(String candidates) {
        return "select task_id, owner, priority, run_at, turn, (owner_no + ?) % max(owner_no) over () as rotation "
                + "from (select candidates.*, dense_rank() over (order by owner) as owner_no from (" + candidates
                + ") as candidates) as numbered order by turn, rotation, priority desc, run_at limit ?";
    }

    /**
     * The due rows a batch may take of some types, shared between owners (DESIGN.md, "Dispatch", "Fair shares"):
     * each owner's first rows by {@code priority desc, run_at} from the index, numbered; an owner of weight
     * {@code w} has its rows 1 to w in turn 0, w+1 to 2w in turn 1, and so on; the select takes whole turns
     * first ({@link #inTurns}). Not locked: only one dispatcher runs at a time (the fence row's lock serialises
     * their transactions), and the batch's UPDATE locks each task it moves and checks its status and run_at again;
     * a cancel that commits meanwhile has deleted its task's row, and the update moves nothing. Takes the shift,
     * a condition on the type, the limit of each owner's rows, and the limit of the whole.
     */
    private static String fairShare(String typeCondition) {
        return inTurns("select owned.*, (owned.rank - 1) / coalesce((select weight from weights w "
                + "where w.owner = owned.owner), 1) as turn from owners cross join lateral (select task_id, owner, "
                + "priority, run_at, row_number() over (order by priority desc, run_at) as rank from (select task_id, "
                + "owner, priority, run_at from tasks_due d where d.owner = owners.owner and run_at <= now() and "
                + typeCondition + " order by priority desc, run_at limit ?) as first_rows) as owned");
    }

    private final TaskDatabase database;
    private final TransitionMeters meters;
    private final TypeLimits limits;
    /** The keys whose share is not 1 ({@code taskfence.auth.keys.<name>.weight}); every other owner has 1. */
    private final Map<String, Integer> weights;
    /** Batches this replica's dispatch ran: the shift of the owners' order ({@link #OWNERS}). */
    private final AtomicLong batches = new AtomicLong();

    DispatchBatch(TaskDatabase database, TransitionMeters meters, TypeLimits limits, TaskfenceConfig config) {
        this.database = database;
        this.meters = meters;
        this.limits = limits;
        this.weights = new TreeMap<>();
        config.auth().keys().forEach((name, key) -> {
            if (key.weight() != 1) {
                weights.put(name, key.weight());
            }
        });
    }

    /**
     * Due PENDING and FAILED → ENQUEUED, at most {@code limit}, shared between the owners that have due tasks in
     * turns by their weights, each owner's highest priority then oldest {@code run_at} first, in one fenced
     * transaction. Paused types are left out, and a limited type gets at most the room its limits leave ({@link
     * DispatchRoom}): its due tasks are read by a select of their own, limited to that room, beside the select
     * of all other types, so that a type at its limit never takes the batch's places from the others.
     *
     * @return the ids moved and how many due rows the batch used up
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was moved
     */
    public Batch enqueueDue(FenceToken fence, int limit) {
        record Enqueued(UUID id, String type) {
        }
        record Moved(int taken, List<Enqueued> enqueued) {
        }
        Moved moved = database.fenced(fence, connection -> {
            DispatchRoom room = DispatchRoom.read(connection, limits);
            // Each owner's select must walk tasks_due_owner_order in order and stop at its limit. Without fresh
            // statistics (a backlog just loaded, before autovacuum's analyze) the planner guesses a few rows an
            // owner and reads all of its due rows through a bitmap scan, then sorts them: 80 ms a batch instead
            // of 1.5 ms with 100,000 due (DESIGN.md, "Dispatch", "Fair shares").
            try (Statement plan = connection.createStatement()) {
                plan.execute("set local enable_bitmapscan = off");
            }
            List<String> limitedTypes = List.copyOf(room.room().keySet());
            // Each select reads an owner's rows in the order of the index tasks_due_owner_order and the batch is
            // updated through the primary key: a join of the two would let the planner scan the whole table.
            StringBuilder sql = new StringBuilder("with recursive " + OWNERS + ", general as (")
                    .append(fairShare("type <> all(?)")).append(")");
            for (int i = 0; i < limitedTypes.size(); i++) {
                sql.append(", limited").append(i).append(" as (").append(fairShare("type = ?")).append(")");
            }
            if (limitedTypes.isEmpty()) {
                sql.append(", due as (select task_id, priority, run_at, turn, rotation from general), ");
            } else {
                // An owner's rows from several selects take their turns again among themselves.
                StringBuilder union = new StringBuilder("select task_id, owner, priority, run_at from general");
                for (int i = 0; i < limitedTypes.size(); i++) {
                    union.append(" union all select task_id, owner, priority, run_at from limited").append(i);
                }
                sql.append(", due as (").append(inTurns("select any_type.*, (row_number() over (partition by owner order "
                        + "by priority desc, run_at) - 1) / coalesce((select weight from weights w where w.owner = "
                        + "any_type.owner), 1) as turn from (" + union + ") as any_type")).append("), ");
            }
            // Each task's row is locked (by the update) before its tasks_due row (by the delete that reads the
            // update's output), the order in which the triggers of every other transition take them: a cancel
            // racing this batch waits for it, or it for the cancel, never both.
            sql.append("moved as (update tasks set status = 'ENQUEUED', fence = ?, enqueues = enqueues + 1, "
                    + "enqueued_at = now(), updated_at = now() where id = any(array(select task_id from due)) "
                    + "and " + DUE + " returning id, type, owner), "
                    + "taken as (delete from tasks_due where task_id in (select id from moved)), "
                    + "in_flight as (insert into tasks_in_flight (task_id, type, owner) "
                    + "select id, type, coalesce(owner, '') from moved on conflict (task_id) do nothing) "
                    + "select due.task_id, moved.type from due left join moved on moved.id = due.task_id "
                    + "order by due.turn, due.rotation, due.priority desc, due.run_at");
            try (PreparedStatement enqueue = connection.prepareStatement(sql.toString())) {
                int parameter = 1;
                long shift = batches.getAndIncrement();
                enqueue.setArray(parameter++, connection.createArrayOf("text", weights.keySet().toArray()));
                enqueue.setArray(parameter++, connection.createArrayOf("int4", weights.values().toArray()));
                enqueue.setLong(parameter++, shift);
                enqueue.setArray(parameter++, connection.createArrayOf("text", room.excluded().toArray()));
                enqueue.setInt(parameter++, limit);
                enqueue.setInt(parameter++, limit);
                for (String type : limitedTypes) {
                    int typeRoom = Math.min(limit, room.room().get(type));
                    enqueue.setLong(parameter++, shift);
                    enqueue.setString(parameter++, type);
                    enqueue.setInt(parameter++, typeRoom);
                    enqueue.setInt(parameter++, typeRoom);
                }
                if (!limitedTypes.isEmpty()) {
                    enqueue.setLong(parameter++, shift);
                    enqueue.setInt(parameter++, limit);
                }
                enqueue.setLong(parameter, fence.token());
                List<Enqueued> batch = new ArrayList<>();
                List<UUID> notMoved = new ArrayList<>();
                int taken = 0;
                try (ResultSet row = enqueue.executeQuery()) {
                    while (row.next()) {
                        taken++;
                        UUID id = row.getObject(1, UUID.class);
                        if (row.getString(2) != null) {
                            batch.add(new Enqueued(id, row.getString(2)));
                        } else {
                            notMoved.add(id);
                        }
                    }
                }
                if (!notMoved.isEmpty()) {
                    forgetStaleDueRows(connection, notMoved);
                }
                if (!batch.isEmpty()) {
                    logDispatch(connection, fence, batch.size());
                }
                if (!limits.rated().isEmpty()) {
                    room.forgetOldStarts(connection);
                }
                return new Moved(taken, batch);
            }
        });
        // Committed: database.fenced() returns only after the commit.
        meters.moved(moved.enqueued().stream().map(row -> new TransitionMeters.Moved(TaskStatus.ENQUEUED, row.type()))
                .toList());
        return new Batch(moved.enqueued().stream().map(Enqueued::id).toList(), moved.taken());
    }

    /**
     * What one batch did.
     *
     * @param enqueued the ids moved to ENQUEUED, in the order to push them to the queue
     * @param taken how many due rows it found, those of tasks cancelled meanwhile or left stale by SQL included:
     *        fewer than the batch's limit means none was left due
     */
    public record Batch(List<UUID> enqueued, int taken) {
    }

    /** Whether any task of an unpaused type is due for dispatch. */
    public boolean anyDue() {
        return database.inConnection(connection -> {
            try (PreparedStatement due = connection.prepareStatement("select exists (select 1 from tasks_due "
                    + "where run_at <= now() and type not in (select type from paused_types))");
                    ResultSet row = due.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        });
    }

    /**
     * Deletes the due rows the batch found but could not move whose task is not waiting, or gone: only SQL by hand
     * leaves such rows (DESIGN.md, "Storage"), and at the head of the due order they would take every batch's
     * places. The task's row is locked first, as every transition does, and checked again under the lock; a task
     * that still waits (a cancel was under way and rolled back) keeps its row.
     */
    private static void forgetStaleDueRows(Connection connection, List<UUID> ids) throws SQLException {
        try (PreparedStatement forget = connection.prepareStatement("with settled as (select id from tasks "
                + "where id = any(?) and status not in ('PENDING', 'FAILED') order by id for update), "
                + "gone as (select task_id from unnest(?::uuid[]) as found(task_id) "
                + "where not exists (select 1 from tasks where id = task_id)) "
                + "delete from tasks_due where task_id in (select id from settled union all select task_id from gone)")) {
            Object[] array = ids.toArray();
            forget.setArray(1, connection.createArrayOf("uuid", array));
            forget.setArray(2, connection.createArrayOf("uuid", array));
            forget.executeUpdate();
        }
    }

    /** Records the batch in {@code dispatch_log} (same transaction); retention deletes old rows. */
    private static void logDispatch(Connection connection, FenceToken fence, int tasks) throws SQLException {
        try (PreparedStatement log = connection.prepareStatement(
                "insert into dispatch_log (token, holder, tasks) values (?, ?, ?)")) {
            log.setLong(1, fence.token());
            log.setString(2, fence.holder());
            log.setInt(3, tasks);
            log.executeUpdate();
        }
    }
}

package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.DUE;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

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
     * The due tasks a batch may take; completed by a condition on the type and {@link #DUE_ORDER}. Not locked: the
     * batch's UPDATE locks each row it moves and checks its status again, and a row lock taken here first would
     * cost a WAL record of its own per task. Only one dispatcher runs at a time (the fence row's lock serialises
     * their transactions); a row a cancel holds makes the UPDATE wait for that one statement, then skip the row.
     */
    private static final String DUE_ROWS = "select id, priority, run_at from tasks where " + DUE + " ";
    private static final String DUE_ORDER = "order by priority desc, run_at limit ?";

    private final TaskDatabase database;
    private final TransitionMeters meters;
    private final TypeLimits limits;

    DispatchBatch(TaskDatabase database, TransitionMeters meters, TypeLimits limits) {
        this.database = database;
        this.meters = meters;
        this.limits = limits;
    }

    /**
     * Due PENDING and FAILED → ENQUEUED, at most {@code limit}, highest priority then oldest {@code run_at}
     * first, in one fenced transaction. Paused types are left out, and a limited type gets at most the room its limits leave ({@link
     * DispatchRoom}): its due tasks are read by a select of their own, limited to that room, beside the select
     * of all other types, so that a type at its limit never takes the batch's places from the others.
     *
     * @return the ids moved, in the order to push them to the queue
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was moved
     */
    public List<UUID> enqueueDue(FenceToken fence, int limit) {
        record Enqueued(UUID id, String type) {
        }
        List<Enqueued> enqueued = database.fenced(fence, connection -> {
            DispatchRoom room = DispatchRoom.read(connection, limits);
            List<String> limitedTypes = List.copyOf(room.room().keySet());
            // Each select reads in the order of the index tasks_due and the batch is updated through the
            // primary key: a join of the two would let the planner scan the whole table for a few hundred rows.
            StringBuilder sql = new StringBuilder("with general as (" + DUE_ROWS + "and type <> all(?) " + DUE_ORDER + ")");
            for (int i = 0; i < limitedTypes.size(); i++) {
                sql.append(", limited").append(i).append(" as (").append(DUE_ROWS).append("and type = ? ")
                        .append(DUE_ORDER).append(")");
            }
            sql.append(", due as (select id from (select * from general");
            for (int i = 0; i < limitedTypes.size(); i++) {
                sql.append(" union all select * from limited").append(i);
            }
            sql.append(") as any_type order by priority desc, run_at limit ?), "
                    + "moved as (update tasks set status = 'ENQUEUED', fence = ?, enqueues = enqueues + 1, updated_at = now() "
                    + "where id = any(array(select id from due)) and status in ('PENDING', 'FAILED') "
                    + "returning id, type, priority, run_at) "
                    + "select id, type from moved order by priority desc, run_at");
            try (PreparedStatement enqueue = connection.prepareStatement(sql.toString())) {
                int parameter = 1;
                enqueue.setArray(parameter++, connection.createArrayOf("text", room.excluded().toArray()));
                enqueue.setInt(parameter++, limit);
                for (String type : limitedTypes) {
                    enqueue.setString(parameter++, type);
                    enqueue.setInt(parameter++, Math.min(limit, room.room().get(type)));
                }
                enqueue.setInt(parameter++, limit);
                enqueue.setLong(parameter, fence.token());
                List<Enqueued> batch = new ArrayList<>();
                try (ResultSet moved = enqueue.executeQuery()) {
                    while (moved.next()) {
                        batch.add(new Enqueued(moved.getObject(1, UUID.class), moved.getString(2)));
                    }
                }
                if (!batch.isEmpty()) {
                    logDispatch(connection, fence, batch.size());
                }
                if (!limits.rated().isEmpty()) {
                    room.forgetOldStarts(connection);
                }
                return batch;
            }
        });
        // Committed: database.fenced() returns only after the commit.
        meters.moved(enqueued.stream().map(row -> new TransitionMeters.Moved(TaskStatus.ENQUEUED, row.type())).toList());
        return enqueued.stream().map(Enqueued::id).toList();
    }

    /** Whether any task of an unpaused type is due for dispatch. */
    public boolean anyDue() {
        return database.inConnection(connection -> {
            try (PreparedStatement due = connection.prepareStatement("select exists (select 1 from tasks where " + DUE
                    + " and type not in (select type from paused_types))"); ResultSet row = due.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        });
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

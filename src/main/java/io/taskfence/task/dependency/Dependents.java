package io.taskfence.task.dependency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.task.TaskStatus;
import io.taskfence.task.transition.TransitionMeters;

/**
 * WAITING → PENDING or CANCELLED: the dependents of tasks that ended, moved by the follow-ups job (DESIGN.md,
 * "Dependencies", "Follow-ups"), a bounded chunk of each ended task's edges in one statement.
 */
@ApplicationScoped
public class Dependents {

    /**
     * For each walk (an ended task, how it ended, the last dependent walked before), its next {@code take} edges in
     * dependent-id order: each unresolved one is resolved and counted off its dependent, which is released (→ PENDING)
     * when none is left, or cancelled at once by a DEAD or CANCELLED end when it does not run anyway. Dependents are
     * locked in id order, as a submission locks the WAITING tasks it waits for, so the two never deadlock.
     */
    private static final String WALK = "with walk as (select * from unnest(?::uuid[], ?::text[], ?::boolean[], "
            + "?::uuid[]) as w(depends_on, ended_as, failed, after_task)), "
            + "edges as materialized (select w.depends_on, w.ended_as, w.failed, e.task_id from walk w cross join lateral ("
            + "select e.task_id from task_dependencies e where e.depends_on = w.depends_on "
            + "and (w.after_task is null or e.task_id > w.after_task) order by e.task_id limit ?) e), "
            + "resolved as (update task_dependencies e set resolved = true from edges x "
            + "where e.depends_on = x.depends_on and e.task_id = x.task_id and not e.resolved "
            + "returning e.depends_on, e.task_id), "
            + "counted as (select r.task_id, count(*)::int as n, "
            + "min(case when x.failed then 'dependency ' || x.depends_on || ' ended ' || x.ended_as end) "
            + "as why from resolved r join edges x on x.depends_on = r.depends_on and x.task_id = r.task_id "
            + "group by r.task_id), "
            + "locked as (select t.id, c.n, c.why, c.why is not null and t.on_dependency_failure = 'cancel' "
            + "as cancels from tasks t join counted c on c.task_id = t.id where t.status = 'WAITING' "
            + "order by t.id for no key update of t), "
            + "moved as (update tasks set dependencies_left = dependencies_left - locked.n, "
            + "status = case when locked.cancels then 'CANCELLED' when dependencies_left - locked.n <= 0 then 'PENDING' "
            + "else 'WAITING' end, "
            + "last_error = case when locked.cancels then locked.why else last_error end, "
            // Not now(): the job's transaction may have begun before the end it follows up committed, and a
            // dependent's release (its history's time) must come after its dependency's end.
            + "updated_at = statement_timestamp() from locked where tasks.id = locked.id and tasks.status = 'WAITING' "
            + "returning tasks.id, tasks.status, tasks.type) "
            + "select 'moved', id, status, type, null::int from moved "
            + "union all select 'walked', depends_on, null, null, count(*)::int from edges group by depends_on "
            + "union all select 'last', depends_on, (array_agg(task_id order by task_id desc))[1]::text, null, null "
            + "from edges group by depends_on";

    /** One ended task's walk: its id, how it ended, and the last dependent walked before (null: none yet). */
    public record Walk(UUID endedTask, String endedAs, UUID afterTask) {
    }

    /**
     * What a chunk did: the moves made, the dependents cancelled, and for each walk that took its whole share the
     * last dependent it walked (its next chunk starts after it); a walk not named there is finished.
     */
    public record Walked(List<TransitionMeters.Moved> moved, List<UUID> cancelled, int released,
            Map<UUID, UUID> unfinished) {
    }

    /** The next {@code take} edges of each walk, in the caller's transaction. */
    public Walked walk(Connection connection, List<Walk> walks, int take) throws SQLException {
        if (walks.isEmpty()) {
            return new Walked(List.of(), List.of(), 0, Map.of());
        }
        List<TransitionMeters.Moved> moved = new ArrayList<>();
        List<UUID> cancelled = new ArrayList<>();
        Map<UUID, Integer> walkedCount = new HashMap<>();
        Map<UUID, UUID> last = new HashMap<>();
        int released = 0;
        try (PreparedStatement walk = connection.prepareStatement(WALK)) {
            walk.setArray(1, connection.createArrayOf("uuid", walks.stream().map(Walk::endedTask).toArray()));
            walk.setArray(2, connection.createArrayOf("text", walks.stream().map(Walk::endedAs).toArray()));
            walk.setArray(3, connection.createArrayOf("bool", walks.stream()
                    .map(one -> !one.endedAs().equals(TaskStatus.SUCCEEDED.name())).toArray()));
            walk.setArray(4, connection.createArrayOf("uuid", walks.stream().map(Walk::afterTask).toArray()));
            walk.setInt(5, take);
            try (ResultSet row = walk.executeQuery()) {
                while (row.next()) {
                    UUID id = row.getObject(2, UUID.class);
                    switch (row.getString(1)) {
                        case "moved" -> {
                            TaskStatus to = TaskStatus.valueOf(row.getString(3));
                            moved.add(new TransitionMeters.Moved(to, row.getString(4)));
                            if (to == TaskStatus.CANCELLED) {
                                cancelled.add(id);
                            } else if (to == TaskStatus.PENDING) {
                                released++;
                            }
                        }
                        case "walked" -> walkedCount.put(id, row.getInt(5));
                        default -> last.put(id, UUID.fromString(row.getString(3)));
                    }
                }
            }
        }
        Map<UUID, UUID> unfinished = new HashMap<>();
        walkedCount.forEach((task, count) -> {
            if (count >= take) {
                unfinished.put(task, last.get(task));
            }
        });
        // A dependent that stayed WAITING (other dependencies left) was counted off but did not move.
        moved.removeIf(move -> move.to() == TaskStatus.WAITING);
        return new Walked(moved, cancelled, released, unfinished);
    }
}

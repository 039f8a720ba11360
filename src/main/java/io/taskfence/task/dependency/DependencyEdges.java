package io.taskfence.task.dependency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.taskfence.task.TaskStatus;

/**
 * A submission's side of dependencies (DESIGN.md, "Dependencies"): the rows of the tasks its new ones wait for, locked
 * and marked depended on, and the edges to them, in the submission's transaction.
 */
public final class DependencyEdges {

    private DependencyEdges() {
    }

    /** A dependency as its row was when locked: its owner and status. */
    public record Dependency(String owner, TaskStatus status) {

        /** It ended DEAD or CANCELLED: a dependent that does not run anyway would be cancelled at once. */
        public boolean failed() {
            return status == TaskStatus.DEAD || status == TaskStatus.CANCELLED;
        }
    }

    /** A task waited for, by its id, and the owner of the task that waits. */
    public record Wanted(UUID id, String owner) {
    }

    /** An edge: {@code task} waits for {@code dependsOn}; resolved already when that had ended. */
    public record Edge(UUID dependsOn, UUID task, boolean resolved) {
    }

    /**
     * Locks the rows of the tasks wanted, of the owners asking only, and marks them as depended on
     * ({@code has_dependents}, which makes their end leave a follow-up): until the transaction ends, none of them can
     * end, and once it has, the follow-ups of each one's end find the edges it adds (DESIGN.md, "Dependencies",
     * "Follow-ups"). The tasks not WAITING are locked first, then the WAITING ones, each in id order, the order in
     * which the follow-ups job locks the WAITING dependents it moves.
     *
     * @return each one's owner and status as locked; an id that names no task of the owner asking is absent
     */
    public static Map<UUID, Dependency> lock(Connection connection, Set<Wanted> wanted) throws SQLException {
        if (wanted.isEmpty()) {
            return Map.of();
        }
        Map<UUID, Dependency> found = new HashMap<>();
        lock(connection, wanted, "t.status <> 'WAITING'", found);
        Set<Wanted> left = new HashSet<>(wanted);
        left.removeIf(one -> found.containsKey(one.id()));
        if (!left.isEmpty()) {
            lock(connection, left, "true", found);
        }
        return found;
    }

    private static void lock(Connection connection, Set<Wanted> wanted, String condition, Map<UUID, Dependency> found)
            throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("with locked as (select t.id from tasks t "
                + "join unnest(?::uuid[], ?::text[]) as wanted(id, owner) on t.id = wanted.id "
                + "and coalesce(t.owner, '') = coalesce(wanted.owner, '') where " + condition + " "
                + "order by t.id for no key update of t) update tasks set has_dependents = true "
                + "from locked where tasks.id = locked.id returning tasks.id, tasks.owner, tasks.status")) {
            lock.setArray(1, connection.createArrayOf("uuid", wanted.stream().map(Wanted::id).toArray()));
            lock.setArray(2, connection.createArrayOf("text", wanted.stream().map(Wanted::owner).toArray()));
            try (ResultSet row = lock.executeQuery()) {
                while (row.next()) {
                    found.put(row.getObject(1, UUID.class),
                            new Dependency(row.getString(2), TaskStatus.valueOf(row.getString(3))));
                }
            }
        }
    }

    /** Inserts the edges of tasks just inserted. */
    public static void insert(Connection connection, List<Edge> edges) throws SQLException {
        if (edges.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement("insert into task_dependencies "
                + "(depends_on, task_id, resolved) select * from unnest(?::uuid[], ?::uuid[], ?::boolean[])")) {
            insert.setArray(1, connection.createArrayOf("uuid", edges.stream().map(Edge::dependsOn).toArray()));
            insert.setArray(2, connection.createArrayOf("uuid", edges.stream().map(Edge::task).toArray()));
            insert.setArray(3, connection.createArrayOf("bool", edges.stream().map(Edge::resolved).toArray()));
            insert.executeUpdate();
        }
    }
}

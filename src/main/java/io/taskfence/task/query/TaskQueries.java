package io.taskfence.task.query;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.ReadDatabase;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskField;
import io.taskfence.task.TaskScope;

/**
 * Reads of the task table: one task, a page of a listing, counts. What the API reads goes through the reads pool
 * ({@link ReadDatabase}: its own connections, a statement time-out); what the data path reads (a claim's task, a
 * fence) through the default pool, which no API read can take.
 */
@ApplicationScoped
public class TaskQueries {

    private final DataSource db;
    private final ReadDatabase reads;
    private final TaskRows rows;

    TaskQueries(DataSource db, ReadDatabase reads, TaskRows rows) {
        this.db = db;
        this.reads = reads;
        this.rows = rows;
    }

    /** The task, if it exists, read on the data path's pool (a claim's task, whoever owns it). */
    public Optional<Task> find(UUID id) {
        try (Connection connection = db.getConnection()) {
            return find(connection, id, TaskScope.ALL);
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    /**
     * The task, if it exists and is in {@code scope}: one out of scope is as absent as one that never was. An API
     * read: on the reads pool.
     */
    public Optional<Task> find(UUID id, TaskScope scope) {
        return reads.read(connection -> find(connection, id, scope));
    }

    private Optional<Task> find(Connection connection, UUID id, TaskScope scope) throws SQLException {
        try (PreparedStatement find = connection.prepareStatement(
                        "select " + TaskRows.COLUMNS + ", array(select depends_on from task_dependencies "
                                + "where task_id = tasks.id order by depends_on) as depends_on "
                                + "from tasks where id = ? and (?::text is null or owner = ?)")) {
            find.setObject(1, id);
            find.setString(2, scope.owner());
            find.setString(3, scope.owner());
            try (ResultSet row = find.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                return Optional.of(rows.task(row).dependingOn(List.of((UUID[]) row.getArray("depends_on").getArray())));
            }
        }
    }

    /**
     * Tasks in {@code scope} that {@code filter} lets through, newest first, after the keyset cursor {@code after}
     * (from an earlier page's {@code next}). Paging never repeats or skips a task that existed when the
     * first page was read, however many are submitted meanwhile. Of the large fields, only those in
     * {@code fields} are read.
     *
     * @throws InvalidCursorException if {@code after} is not a cursor this service made
     */
    public TaskPage page(TaskScope scope, TaskFilter filter, int limit, String after, Set<TaskField> fields) {
        Cursor cursor = after == null ? null : Cursor.parse(after);
        StringBuilder sql = new StringBuilder("select " + TaskRows.columns(fields) + " from tasks where true");
        List<Object> parameters = new ArrayList<>();
        sql.append(filter.conditions(scope, parameters));
        if (cursor != null) {
            sql.append(" and (created_at, id) < (?, ?)");
            parameters.add(Timestamp.from(cursor.createdAt()));
            parameters.add(cursor.id());
        }
        sql.append(" order by created_at desc, id desc limit ?");
        parameters.add(limit + 1); // one more tells whether a next page exists

        List<Task> tasks = reads.read(connection -> {
            List<Task> read = new ArrayList<>();
            try (PreparedStatement page = prepared(connection, sql.toString(), parameters);
                    ResultSet row = page.executeQuery()) {
                while (row.next()) {
                    read.add(rows.task(row, fields));
                }
            }
            return read;
        });
        if (tasks.size() <= limit) {
            return new TaskPage(tasks, null);
        }
        List<Task> items = tasks.subList(0, limit);
        Task last = items.getLast();
        return new TaskPage(List.copyOf(items), new Cursor(last.createdAt(), last.id(), filter.createdAfter()).encode());
    }

    /**
     * The lower bound of the page that made the cursor {@code after} (a search window's start, or the client's own
     * {@code createdAfter}), if it had one: the later pages of a search keep its first page's window, which would
     * otherwise slide with the clock and skip the tasks it slid past.
     *
     * @throws InvalidCursorException if {@code after} is not a cursor this service made
     */
    public Optional<Instant> createdAfterOf(String after) {
        return Optional.ofNullable(Cursor.parse(after).createdAfter());
    }

    /** How many tasks in {@code scope} {@code filter} lets through. */
    public long count(TaskScope scope, TaskFilter filter) {
        List<Object> parameters = new ArrayList<>();
        String sql = "select count(*) from tasks where true" + filter.conditions(scope, parameters);
        return reads.read(connection -> {
            try (PreparedStatement count = prepared(connection, sql, parameters); ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        });
    }

    /**
     * How many tasks in {@code scope} {@code filter} lets through, counting no further than {@code cap}: past it the
     * count says "at least". Its {@code createdBefore} is the filter's, or PostgreSQL's time when it counted (no task
     * created since is in the count), so that what acts on the count's filter with it acts on what was counted.
     */
    public TaskCount countAtMost(TaskScope scope, TaskFilter filter, int cap) {
        List<Object> parameters = new ArrayList<>();
        // A search walks the newest-first index through its time range (the search window at most): unordered, the
        // planner, counting on the cap to stop it early, reads the whole table instead (DESIGN.md, "Bulkheads").
        String sql = "select (select count(*) from (select 1 from tasks where true" + filter.conditions(scope, parameters)
                + (filter.createdBefore() == null ? " and created_at < now()" : "")
                + (filter.searches() ? " order by created_at desc" : "") + " limit ?) counted), now()";
        parameters.add(cap + 1); // one more tells whether there are more
        return reads.read(connection -> {
            try (PreparedStatement count = prepared(connection, sql, parameters); ResultSet row = count.executeQuery()) {
                row.next();
                long counted = row.getLong(1);
                Instant bound = filter.createdBefore() != null ? filter.createdBefore()
                        : row.getObject(2, OffsetDateTime.class).toInstant();
                return new TaskCount(Math.min(counted, cap), counted > cap, filter.createdAfter(), bound);
            }
        });
    }

    /** How many tasks are in each status, every status present (zero where none). */
    public Map<TaskStatus, Long> countByStatus() {
        Map<TaskStatus, Long> counts = new EnumMap<>(TaskStatus.class);
        for (TaskStatus status : TaskStatus.values()) {
            counts.put(status, 0L);
        }
        return reads.read(connection -> {
            try (PreparedStatement count = connection.prepareStatement(
                    "select status, count(*) from tasks group by status"); ResultSet row = count.executeQuery()) {
                while (row.next()) {
                    counts.put(TaskStatus.valueOf(row.getString(1)), row.getLong(2));
                }
                return counts;
            }
        });
    }

    private static PreparedStatement prepared(Connection connection, String sql, List<Object> parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        for (int i = 0; i < parameters.size(); i++) {
            statement.setObject(i + 1, parameters.get(i));
        }
        return statement;
    }

    /** The newest fencing token PostgreSQL has accepted for {@code lock}; 0 if none yet. */
    public long newestFence(String lock) {
        try (Connection connection = db.getConnection();
                PreparedStatement fence = connection.prepareStatement("select token from fences where name = ?")) {
            fence.setString(1, lock);
            try (ResultSet row = fence.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    /**
     * A position in the newest-first order: the last task of a page. Opaque to clients, and only the form
     * {@link #encode} writes is read back: anything else is not a position (and a creation time outside
     * the years PostgreSQL and {@link Timestamp} hold would fail the query instead of being refused).
     */
    private record Cursor(Instant createdAt, UUID id, Instant createdAfter) {

        private static final Instant EARLIEST = Instant.EPOCH;
        private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999999Z");

        String encode() {
            String plain = createdAt.getEpochSecond() + "." + createdAt.getNano() + "." + id
                    + (createdAfter == null ? "" : "." + createdAfter.getEpochSecond() + "." + createdAfter.getNano());
            return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
        }

        static Cursor parse(String encoded) {
            Cursor cursor;
            try {
                String[] parts = new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8).split("\\.", 5);
                cursor = new Cursor(Instant.ofEpochSecond(Long.parseLong(parts[0]), Long.parseLong(parts[1])),
                        UUID.fromString(parts[2]), parts.length == 3 ? null
                                : Instant.ofEpochSecond(Long.parseLong(parts[3]), Long.parseLong(parts[4])));
            } catch (RuntimeException e) {
                throw new InvalidCursorException(encoded);
            }
            if (outside(cursor.createdAt) || cursor.createdAfter != null && outside(cursor.createdAfter)
                    || !cursor.encode().equals(encoded)) {
                throw new InvalidCursorException(encoded);
            }
            return cursor;
        }

        private static boolean outside(Instant at) {
            return at.isBefore(EARLIEST) || at.isAfter(LATEST);
        }
    }
}

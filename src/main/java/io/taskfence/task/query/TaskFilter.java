package io.taskfence.task.query;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskScope;

/**
 * Which tasks a listing, a count or a bulk action takes, within the reader's {@link TaskScope}: each field that is not
 * null narrows it. {@code owner} an API key's name; {@code statuses} any of them; {@code createdAfter} inclusive and
 * {@code createdBefore} exclusive; {@code error} a text the last error contains, {@code text} one the payload or the
 * last error contains (case-insensitive both); {@code batch} a batch's tasks.
 */
public record TaskFilter(String owner, Set<TaskStatus> statuses, String type, UUID batch, Instant createdAfter,
        Instant createdBefore, String error, String text) {

    public static final TaskFilter ALL = new TaskFilter(null, null, null, null, null, null, null, null);

    public TaskFilter {
        statuses = statuses == null || statuses.isEmpty() ? null : Set.copyOf(statuses);
    }

    /** Tasks of one owner, status, type and batch (null: any). */
    public TaskFilter(String owner, TaskStatus status, String type, UUID batch) {
        this(owner, status == null ? null : Set.of(status), type, batch, null, null, null, null);
    }

    /** Whether it searches texts ({@code text} or {@code error}): a scan of every task it does not narrow away. */
    public boolean searches() {
        return text != null || error != null;
    }

    /** This filter with {@code createdAfter} set to {@code from}. */
    public TaskFilter createdFrom(Instant from) {
        return new TaskFilter(owner, statuses, type, batch, from, createdBefore, error, text);
    }

    /**
     * This filter narrowed to {@code allowed}, or to those of them it names already.
     *
     * @throws IllegalArgumentException if it names statuses, none of them allowed
     */
    public TaskFilter within(Set<TaskStatus> allowed) {
        Set<TaskStatus> narrowed = statuses == null ? allowed
                : statuses.stream().filter(allowed::contains).collect(Collectors.toSet());
        if (narrowed.isEmpty()) {
            throw new IllegalArgumentException("none of " + statuses + " is one of " + allowed);
        }
        return new TaskFilter(owner, narrowed, type, batch, createdAfter, createdBefore, error, text);
    }

    /**
     * The conditions on {@code tasks} (unaliased) of this filter in {@code scope}, each starting with " and ", their
     * values appended to {@code parameters} in order. A filter naming statuses none of which exist matches nothing.
     */
    public String conditions(TaskScope scope, List<Object> parameters) {
        StringBuilder sql = new StringBuilder();
        // Both when both are given: a submit key asking for another key's tasks gets none, not an error.
        for (String onlyOwner : new String[] { scope.owner(), owner }) {
            if (onlyOwner != null) {
                sql.append(" and owner = ?");
                parameters.add(onlyOwner);
            }
        }
        if (statuses != null) {
            sql.append(" and status = any(?::text[])").append(narrowing(statuses));
            parameters.add(statuses.stream().map(TaskStatus::name).sorted().toArray(String[]::new));
        }
        if (type != null) {
            sql.append(" and type = ?");
            parameters.add(type);
        }
        if (batch != null) {
            sql.append(" and batch_id = ?");
            parameters.add(batch);
        }
        if (createdAfter != null) {
            sql.append(" and created_at >= ?");
            parameters.add(Timestamp.from(createdAfter));
        }
        if (createdBefore != null) {
            sql.append(" and created_at < ?");
            parameters.add(Timestamp.from(createdBefore));
        }
        if (error != null) {
            sql.append(" and strpos(lower(last_error), lower(?)) > 0");
            parameters.add(error);
        }
        if (text != null) {
            sql.append(" and (strpos(lower(payload::text), lower(?)) > 0 or strpos(lower(last_error), lower(?)) > 0)");
            parameters.add(text);
            parameters.add(text);
        }
        return sql.toString();
    }

    /**
     * No index of the task table holds its status (DESIGN.md, "Storage"): the tables that hold a superset of the
     * tasks in a status, all but the bulk of a long history (SUCCEEDED), narrow a filter by status down to them
     * instead of a walk through every task.
     */
    private static String narrowing(Set<TaskStatus> statuses) {
        if (statuses.contains(TaskStatus.SUCCEEDED)) {
            return "";
        }
        StringBuilder tables = new StringBuilder();
        for (String table : statuses.stream().map(TaskFilter::narrowedBy).distinct().sorted().toList()) {
            tables.append(tables.isEmpty() ? "" : " union all ").append("select task_id from ").append(table);
        }
        return " and id in (" + tables + ")";
    }

    private static String narrowedBy(TaskStatus status) {
        return switch (status) {
            case WAITING -> "tasks_waiting";
            case PENDING -> "tasks_due";
            case ENQUEUED, PROCESSING -> "tasks_in_flight";
            case FAILED, DEAD, CANCELLED -> "tasks_off_path";
            case SUCCEEDED -> throw new IllegalArgumentException("no table narrows SUCCEEDED");
        };
    }
}

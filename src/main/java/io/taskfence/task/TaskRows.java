package io.taskfence.task;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Reads task rows into {@link Task}s and writes JSON values for jsonb parameters. */
@ApplicationScoped
public class TaskRows {

    /** The columns {@link #task} reads, for SELECT and RETURNING clauses. */
    public static final String COLUMNS = "id, type, payload, status, attempt, max_attempts, priority, run_at, deadline, "
            + "created_at, updated_at, last_error, result, owner, concurrency_key, batch_id, callback, timeout_ms, "
            + "progress, progress_at";

    private final ObjectMapper json;

    TaskRows(ObjectMapper json) {
        this.json = json;
    }

    /** The columns of a listing's rows: {@link #COLUMNS}, with a null in place of each large field not asked for. */
    public static String columns(Set<TaskField> fields) {
        return COLUMNS.replace("payload", fields.contains(TaskField.PAYLOAD) ? "payload" : "null as payload")
                .replace("result", fields.contains(TaskField.RESULT) ? "result" : "null as result")
                .replace("progress,", fields.contains(TaskField.PROGRESS) ? "progress," : "null as progress,");
    }

    public Task task(ResultSet row) throws SQLException {
        return task(row, EnumSet.allOf(TaskField.class));
    }

    /**
     * A field not in {@code fields} is Java null, which the task's JSON leaves out; a task without a result
     * reads {@link NullNode}, which it shows as null.
     */
    public Task task(ResultSet row, Set<TaskField> fields) throws SQLException {
        return new Task(
                row.getObject("id", UUID.class),
                row.getString("type"),
                fields.contains(TaskField.PAYLOAD) ? (ObjectNode) parse(row.getString("payload")) : null,
                TaskStatus.valueOf(row.getString("status")),
                row.getInt("attempt"),
                row.getInt("max_attempts"),
                row.getInt("priority"),
                instant(row, "run_at"),
                instant(row, "deadline"),
                instant(row, "created_at"),
                instant(row, "updated_at"),
                row.getString("last_error"),
                fields.contains(TaskField.RESULT) ? orNullNode(parse(row.getString("result"))) : null,
                row.getString("owner"),
                row.getString("concurrency_key"),
                List.of(),
                row.getObject("batch_id", UUID.class),
                (ObjectNode) parse(row.getString("callback")),
                durationText(row.getObject("timeout_ms", Long.class)),
                fields.contains(TaskField.PROGRESS) ? (ObjectNode) parse(row.getString("progress")) : null,
                instant(row, "progress_at"));
    }

    /**
     * A duration as the API writes one, {@code <n>s} when whole seconds, else {@code <n>ms}; null for null. The same
     * as {@code TransitionSql.TIMED_OUT} writes it in SQL.
     */
    public static String durationText(Long millis) {
        if (millis == null) {
            return null;
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    public ObjectNode object(String column, ResultSet row) throws SQLException {
        return (ObjectNode) parse(row.getString(column));
    }

    public String write(JsonNode value) {
        if (value == null) {
            return null;
        }
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON", e);
        }
    }

    /** The tasks a statement ({@code select} or {@code ... returning} {@link #COLUMNS}) returns. */
    public List<Task> tasks(PreparedStatement statement) throws SQLException {
        List<Task> tasks = new ArrayList<>();
        try (ResultSet row = statement.executeQuery()) {
            while (row.next()) {
                tasks.add(task(row));
            }
        }
        return tasks;
    }

    /** A timestamp column as an instant; null for SQL null. */
    public static Instant instant(ResultSet row, String column) throws SQLException {
        Timestamp value = row.getTimestamp(column);
        return value == null ? null : value.toInstant();
    }

    static Timestamp timestamp(Instant value) {
        return value == null ? null : Timestamp.from(value);
    }

    private static JsonNode orNullNode(JsonNode value) {
        return value == null ? NullNode.getInstance() : value;
    }

    private JsonNode parse(String text) {
        if (text == null) {
            return null;
        }
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the database returned invalid JSON", e);
        }
    }
}

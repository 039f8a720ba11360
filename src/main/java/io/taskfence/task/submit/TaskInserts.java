package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.types.TypeLimits;

/**
 * The one statement that inserts task rows (DESIGN.md, "Task lifecycle"): for submissions, grouped and bulk, a batch's
 * then task, the schedules' occurrences and the follow-ups' callback tasks. Callers hold the transaction.
 */
final class TaskInserts {

    private final TaskRows rows;
    private final TypeLimits limits;

    TaskInserts(TaskRows rows, TypeLimits limits) {
        this.rows = rows;
        this.limits = limits;
    }

    /**
     * A task to insert: its id, what was asked, its payload as JSON text, how many of its dependencies have not ended
     * ({@code unended}: WAITING for them when more than 0), whether another task of the same insert waits for it
     * ({@code dependedOn}), and whether it is a batch's then task (WAITING for its batch, run whatever the items came
     * to).
     */
    record Row(UUID id, NewTask task, String payload, int unended, boolean dependedOn, boolean thenTask) {

        /** A task due as submitted (PENDING), waiting for nothing. */
        static Row pending(NewTask task, String payload) {
            return new Row(UUID.randomUUID(), task, payload, 0, false, false);
        }
    }

    /**
     * One multi-row insert of {@code tasks}; a task whose (owner, key) is taken is left out. All are items of
     * {@code batch} (null: of none). Each is stored with its attempts' time-out: the one it asks for, capped at its
     * type's, which it gets when it asks for none (DESIGN.md, "Task lifecycle", "Attempt time-outs"). Rows go in in
     * (owner, key) order, so that two inserts sharing keys wait for each other instead of deadlocking.
     *
     * @return the tasks inserted
     */
    List<Task> insert(Connection connection, List<Row> tasks, UUID batch) throws SQLException {
        // A group's place (key_order) is drawn in the items' order, before they are sorted for the insert.
        try (PreparedStatement insert = connection.prepareStatement("with item as materialized (select item.*, "
                + "case when concurrency_key is not null then nextval('tasks_key_order') end as key_order "
                + "from unnest(?::uuid[], ?::text[], ?::text[], ?::int[], ?::int[], ?::timestamptz[], ?::timestamptz[], "
                + "?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::boolean[], ?::text[], ?::boolean[], "
                + "?::bigint[]) with ordinality as item(id, type, payload, max_attempts, priority, run_at, deadline, key, "
                + "owner, concurrency_key, trace_parent, unended, on_dependency_failure, depended_on, callback, then_task, "
                + "timeout_ms, ord)) "
                + "insert into tasks (id, type, payload, max_attempts, priority, run_at, deadline, idempotency_key, owner, "
                + "concurrency_key, key_order, trace_parent, status, dependencies_left, on_dependency_failure, has_dependents, "
                + "batch_id, callback, timeout_ms) "
                + "select id, type, payload::jsonb, max_attempts, priority, coalesce(run_at, now()), deadline, key, owner, "
                + "concurrency_key, key_order, trace_parent, "
                + "case when unended > 0 or then_task then 'WAITING' else 'PENDING' end, nullif(unended, 0), "
                + "case when then_task then 'run' when unended > 0 then on_dependency_failure end, "
                + "nullif(depended_on, false), ?::uuid, callback::jsonb, timeout_ms from item "
                + "order by coalesce(owner, ''), key, ord "
                + "on conflict (coalesce(owner, ''), idempotency_key) where idempotency_key is not null do nothing "
                + "returning " + TaskRows.COLUMNS)) {
            List<NewTask> asked = tasks.stream().map(Row::task).toList();
            insert.setArray(1, connection.createArrayOf("uuid", tasks.stream().map(Row::id).toArray()));
            insert.setArray(2, connection.createArrayOf("text", asked.stream().map(NewTask::type).toArray()));
            insert.setArray(3, connection.createArrayOf("text", tasks.stream().map(Row::payload).toArray()));
            insert.setArray(4, connection.createArrayOf("int4", asked.stream().map(NewTask::maxAttempts).toArray()));
            insert.setArray(5, connection.createArrayOf("int4", asked.stream().map(NewTask::priority).toArray()));
            // As ISO-8601 text: a Timestamp is written with its offset when bound alone, but inside an
            // array the driver writes it without one, in the session's time zone.
            insert.setArray(6, connection.createArrayOf("text", asked.stream().map(NewTask::runAt)
                    .map(TaskInserts::isoText).toArray()));
            insert.setArray(7, connection.createArrayOf("text", asked.stream().map(NewTask::deadline)
                    .map(TaskInserts::isoText).toArray()));
            insert.setArray(8, connection.createArrayOf("text", asked.stream().map(NewTask::idempotencyKey).toArray()));
            insert.setArray(9, connection.createArrayOf("text", asked.stream().map(NewTask::owner).toArray()));
            insert.setArray(10, connection.createArrayOf("text", asked.stream().map(NewTask::concurrencyKey).toArray()));
            insert.setArray(11, connection.createArrayOf("text", asked.stream().map(NewTask::traceParent).toArray()));
            insert.setArray(12, connection.createArrayOf("int4", tasks.stream().map(Row::unended).toArray()));
            insert.setArray(13, connection.createArrayOf("text", asked.stream()
                    .map(task -> task.dependencies().runIfOneFails() ? "run" : "cancel").toArray()));
            insert.setArray(14, connection.createArrayOf("bool", tasks.stream().map(Row::dependedOn).toArray()));
            insert.setArray(15, connection.createArrayOf("text", asked.stream().map(NewTask::callback)
                    .map(TaskInserts::callbackJson).toArray()));
            insert.setArray(16, connection.createArrayOf("bool", tasks.stream().map(Row::thenTask).toArray()));
            insert.setArray(17, connection.createArrayOf("int8", asked.stream()
                    .map(task -> limits.timeout(task.type(), task.timeout())).map(TaskInserts::millis).toArray()));
            insert.setObject(18, batch);
            return rows.tasks(insert);
        }
    }

    /** The task's {@code callback} column: {@code {"url", "maxAttempts"}}, or null. */
    private static String callbackJson(NewTask.Callback callback) {
        return callback == null ? null : JsonNodeFactory.instance.objectNode().put("url", callback.url())
                .put("maxAttempts", callback.maxAttempts()).toString();
    }

    private static Long millis(Duration duration) {
        return duration == null ? null : duration.toMillis();
    }

    private static String isoText(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}

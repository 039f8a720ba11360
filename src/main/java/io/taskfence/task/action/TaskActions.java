package io.taskfence.task.action;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;


import io.taskfence.TaskfenceConfig;
import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TaskCancelled;
import io.taskfence.task.query.TaskFilter;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskScope;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.submit.Retries;
import io.taskfence.task.transition.OperatorControls;
import io.taskfence.task.transition.TransitionMeters;

/**
 * Bulk actions (DESIGN.md, "Bulk actions"): asked for here, then walked through by the actions job a batch at a time
 * ({@link #step}). The walk takes the tasks the filter matches in (created_at, id) order, those created before the
 * action was asked for (and, for a retry, unchanged since: a task retried and ended again since is not retried by
 * it again), and records how far it has got in the batch's own fenced transaction, so a new leader carries on where
 * the last one's last committed batch ended.
 */
@ApplicationScoped
public class TaskActions {

    private static final String COLUMNS = "id, action, state, filter, total, looked_at, changed, over_quota, "
            + "requested_by, requested_at, finished_at, scope_owner, after_created_at, after_id";

    private final TaskDatabase database;
    private final TaskRows rows;
    private final OperatorControls controls;
    private final Retries retries;
    private final TransitionMeters meters;
    private final Event<TaskCancelled> cancels;
    private final Event<TasksBecameDue> due;
    private final int maxRunningPerKey;

    TaskActions(TaskDatabase database, TaskRows rows, OperatorControls controls, Retries retries, TransitionMeters meters,
            Event<TaskCancelled> cancels, Event<TasksBecameDue> due, TaskfenceConfig config) {
        this.database = database;
        this.rows = rows;
        this.controls = controls;
        this.retries = retries;
        this.meters = meters;
        this.cancels = cancels;
        this.due = due;
        this.maxRunningPerKey = config.actions().maxRunningPerKey();
    }

    /** What asking for an action did. */
    public sealed interface Requested {
        /** It was started. */
        record Started(ActionView action) implements Requested {
        }

        /** The identical action (same action, scope and filter) was running: that one. */
        record AlreadyRunning(ActionView action) implements Requested {
        }

        /** The key had {@code cap} actions running, the most it may: nothing was started. */
        record Refused(int cap) implements Requested {
        }
    }

    /**
     * Starts {@code action} on the tasks in {@code scope} that {@code filter} matches (narrowed to the statuses the
     * action moves from), unless the same action on the same scope and filter is running: then that one; or unless
     * the key {@code requestedBy} (null: no key) has its cap of running actions. Nothing here reads tasks: what the
     * action takes is known as the actions job walks it.
     */
    public Requested request(BulkAction action, TaskScope scope, TaskFilter filter, String requestedBy) {
        String canonical = ActionFilters.canonical(filter.within(action.from())).toString();
        Optional<Requested> answered = answeredWithoutStarting(action, scope, canonical, requestedBy);
        if (answered.isPresent()) {
            return answered.get();
        }
        // The insert gives way only to a running action that has committed, which the select then sees, unless it
        // has finished meanwhile: then the request is tried again.
        for (int attempt = 1;; attempt++) {
            Optional<Requested> requested = database.inTransaction(connection -> {
                lockStarts(connection, requestedBy);
                Optional<ActionView> identical = identicalRunning(connection, action, scope, canonical);
                if (identical.isPresent()) {
                    return Optional.of(new Requested.AlreadyRunning(identical.get()));
                }
                if (running(connection, requestedBy) >= maxRunningPerKey) {
                    return Optional.of(new Requested.Refused(maxRunningPerKey));
                }
                try (PreparedStatement insert = connection.prepareStatement("insert into task_actions (id, action, "
                        + "scope_owner, filter, requested_by, state, total) values (?, ?, ?, ?::jsonb, ?, 'RUNNING', 0) "
                        + "on conflict (action, coalesce(scope_owner, ''), filter) where state = 'RUNNING' do nothing "
                        + "returning " + COLUMNS)) {
                    insert.setObject(1, UUID.randomUUID());
                    insert.setString(2, action.key());
                    insert.setString(3, scope.owner());
                    insert.setString(4, canonical);
                    insert.setString(5, requestedBy);
                    Optional<ActionView> started = views(insert).stream().findFirst();
                    if (started.isPresent()) {
                        return Optional.of(new Requested.Started(started.get()));
                    }
                }
                // Another key with the same scope (an admin's) started the identical action meanwhile.
                return identicalRunning(connection, action, scope, canonical).map(Requested.AlreadyRunning::new);
            });
            if (requested.isPresent() || attempt == 3) {
                return requested.orElseThrow(() -> new IllegalStateException("an identical action kept finishing"));
            }
        }
    }

    /**
     * The answers that start nothing, read without the key's lock: the identical running action, or the refusal of a
     * key at its cap. A key past its cap that keeps asking costs two index reads a request, side by side, not a turn
     * at its lock each; a refusal read so is the one a request a moment earlier would have had.
     */
    private Optional<Requested> answeredWithoutStarting(BulkAction action, TaskScope scope, String canonical,
            String requestedBy) {
        return database.inConnection(connection -> {
            Optional<ActionView> identical = identicalRunning(connection, action, scope, canonical);
            if (identical.isPresent()) {
                return Optional.of(new Requested.AlreadyRunning(identical.get()));
            }
            return running(connection, requestedBy) >= maxRunningPerKey
                    ? Optional.of(new Requested.Refused(maxRunningPerKey)) : Optional.empty();
        });
    }

    /**
     * A key's starts go one at a time, on every replica (the lock is PostgreSQL's, held to the commit), so the count
     * of its running actions that follows sees every start committed before it: the cap holds exactly.
     */
    private static void lockStarts(Connection connection, String requestedBy) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "select pg_advisory_xact_lock(hashtextextended('taskfence.actions/' || coalesce(?, ''), 0))")) {
            lock.setString(1, requestedBy);
            lock.execute();
        }
    }

    private Optional<ActionView> identicalRunning(Connection connection, BulkAction action, TaskScope scope,
            String canonical) throws SQLException {
        try (PreparedStatement running = connection.prepareStatement("select " + COLUMNS
                + " from task_actions where action = ? and coalesce(scope_owner, '') = coalesce(?, '') "
                + "and filter = ?::jsonb and state = 'RUNNING'")) {
            running.setString(1, action.key());
            running.setString(2, scope.owner());
            running.setString(3, canonical);
            return views(running).stream().findFirst();
        }
    }

    /** The key's running actions; read through the partial index of the running ones, however many have ended. */
    private static long running(Connection connection, String requestedBy) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement("select count(*) from task_actions "
                + "where state = 'RUNNING' and coalesce(requested_by, '') = coalesce(?, '')")) {
            count.setString(1, requestedBy);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** The action, if it exists and was asked for in {@code scope} (an admin's scope sees all). */
    public Optional<ActionView> find(UUID id, TaskScope scope) {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select " + COLUMNS + " from task_actions "
                    + "where id = ? and (?::text is null or scope_owner = ?)")) {
                select.setObject(1, id);
                select.setString(2, scope.owner());
                select.setString(3, scope.owner());
                return views(select).stream().findFirst();
            }
        });
    }

    /** A running action and the key that asked for it (null: no key), whose turns it shares. */
    public record RunningAction(UUID id, String requestedBy) {
    }

    /** The running actions, oldest first. */
    public List<RunningAction> running() {
        return database.inConnection(connection -> {
            List<RunningAction> running = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("select id, requested_by from task_actions "
                    + "where state = 'RUNNING' order by requested_at, id");
                    ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    running.add(new RunningAction(row.getObject(1, UUID.class), row.getString(2)));
                }
            }
            return running;
        });
    }

    /**
     * One batch of the action: at most {@code batchSize} tasks, moved and the walk's progress recorded in one fenced
     * transaction; the action is DONE once a batch finds fewer. Cancelled running handlers are told, and dispatch of
     * retried tasks, after the commit.
     *
     * @return whether the action has more to do
     * @throws io.taskfence.store.StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public boolean step(FenceToken fence, UUID id, int batchSize) {
        // It locks many tasks, as a submission may: see TaskDatabase.retryingDeadlocks.
        return database.retryingDeadlocks(() -> stepOnce(fence, id, batchSize));
    }

    private boolean stepOnce(FenceToken fence, UUID id, int batchSize) {
        List<OperatorControls.Cancelled> cancelled = new ArrayList<>();
        List<TransitionMeters.Moved> retried = new ArrayList<>();
        boolean more = database.fenced(fence, connection -> {
            Optional<Walk> locked = lock(connection, id);
            if (locked.isEmpty()) {
                return false;
            }
            Walk walk = locked.get();
            List<Picked> picked = pick(connection, walk, batchSize);
            List<UUID> ids = picked.stream().map(Picked::id).toList();
            long changed = 0;
            long overQuota = 0;
            if (!ids.isEmpty() && walk.action() == BulkAction.CANCEL) {
                cancelled.addAll(controls.cancelAll(connection, ids, walk.requestedAt()));
                changed = cancelled.size();
            } else if (!ids.isEmpty()) {
                Retries.Retried done = retries.retryAll(connection, ids, walk.requestedAt());
                retried.addAll(done.moved());
                changed = done.moved().size();
                overQuota = done.overQuota();
            }
            boolean last = picked.size() < batchSize;
            try (PreparedStatement progress = connection.prepareStatement("update task_actions set "
                    + "looked_at = looked_at + ?, changed = changed + ?, over_quota = over_quota + ?, "
                    + "after_created_at = coalesce(?, after_created_at), after_id = coalesce(?, after_id), "
                    + "state = case when ? then 'DONE' else state end, finished_at = case when ? then now() end, "
                    + "total = case when ? then looked_at + ? else total end where id = ?")) {
                progress.setLong(1, picked.size());
                progress.setLong(2, changed);
                progress.setLong(3, overQuota);
                progress.setTimestamp(4, picked.isEmpty() ? null : Timestamp.from(picked.getLast().createdAt()));
                progress.setObject(5, picked.isEmpty() ? null : picked.getLast().id());
                progress.setBoolean(6, last);
                progress.setBoolean(7, last);
                progress.setBoolean(8, last);
                progress.setLong(9, picked.size());
                progress.setObject(10, id);
                progress.executeUpdate();
            }
            return !last;
        });
        // Committed: database.fenced() returns only after the commit.
        controls.cancelled(cancelled);
        cancelled.stream().filter(OperatorControls.Cancelled::wasRunning)
                .forEach(task -> cancels.fire(new TaskCancelled(task.id())));
        if (!retried.isEmpty()) {
            meters.moved(retried);
            due.fire(new TasksBecameDue());
        }
        return more;
    }

    /** A running action as its batch locked it. */
    private record Walk(BulkAction action, TaskScope scope, TaskFilter filter, Instant requestedAt,
            Instant afterCreatedAt, UUID afterId) {
    }

    private record Picked(UUID id, Instant createdAt) {
    }

    private Optional<Walk> lock(Connection connection, UUID id) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("select " + COLUMNS + " from task_actions "
                + "where id = ? and state = 'RUNNING' for update")) {
            lock.setObject(1, id);
            try (ResultSet row = lock.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                String owner = row.getString("scope_owner");
                return Optional.of(new Walk(BulkAction.valueOf(row.getString("action").toUpperCase(Locale.ROOT)),
                        owner == null ? TaskScope.ALL : TaskScope.ownedBy(owner),
                        ActionFilters.filter(rows.object("filter", row)), TaskRows.instant(row, "requested_at"),
                        TaskRows.instant(row, "after_created_at"), row.getObject("after_id", UUID.class)));
            }
        }
    }

    /** The next tasks of the walk: matching, created before the action was asked for, in (created_at, id) order. */
    private static List<Picked> pick(Connection connection, Walk walk, int batchSize) throws SQLException {
        List<Object> parameters = new ArrayList<>();
        StringBuilder sql = new StringBuilder("select id, created_at from tasks where true")
                .append(walk.filter().conditions(walk.scope(), parameters))
                .append(" and created_at <= ?");
        parameters.add(Timestamp.from(walk.requestedAt()));
        if (walk.action() == BulkAction.RETRY) {
            sql.append(" and updated_at <= ?");
            parameters.add(Timestamp.from(walk.requestedAt()));
        }
        if (walk.afterId() != null) {
            sql.append(" and (created_at, id) > (?, ?)");
            parameters.add(Timestamp.from(walk.afterCreatedAt()));
            parameters.add(walk.afterId());
        }
        sql.append(" order by created_at, id limit ?");
        parameters.add(batchSize);
        try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parameters.size(); i++) {
                select.setObject(i + 1, parameters.get(i));
            }
            List<Picked> picked = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    picked.add(new Picked(row.getObject(1, UUID.class), TaskRows.instant(row, "created_at")));
                }
            }
            return picked;
        }
    }

    private List<ActionView> views(PreparedStatement select) throws SQLException {
        List<ActionView> views = new ArrayList<>();
        try (ResultSet row = select.executeQuery()) {
            while (row.next()) {
                boolean done = "DONE".equals(row.getString("state"));
                views.add(new ActionView(row.getObject("id", UUID.class), row.getString("action"),
                        row.getString("state"), rows.object("filter", row), done ? row.getLong("total") : null,
                        row.getLong("looked_at"), row.getLong("changed"), row.getLong("over_quota"),
                        row.getString("requested_by"), TaskRows.instant(row, "requested_at"), TaskRows.instant(row, "finished_at")));
            }
        }
        return views;
    }
}

package io.taskfence.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.lock.LockSettings;
import io.taskfence.signals.SignalChannel;
import io.taskfence.store.TaskStoreException;
import io.vertx.json.schema.Validator;

/**
 * The task types run by remote workers (DESIGN.md, "Remote workers"): dispatch puts their tasks on a stream of their
 * own, which only the worker API reads. Two sources: the configuration ({@code taskfence.types.<type>.remote=true},
 * checked at start-up: a remote type's name must be one a task type may have, and no handler may run it here as
 * well), and the table {@code remote_types}, where an admin declares more through the API ({@link #declare}).
 * <p>
 * Every replica keeps a copy of the table's types, read at start-up, again when a replica announces a change on
 * {@code <prefix>:types}, every {@value #REREAD_SECONDS} seconds, and at once when asked about a type it does not
 * know: so a type declared through one replica is known to the one that dispatches or takes a submission before its
 * first task is handled there, announced or not.
 */
@ApplicationScoped
@Startup
public class RemoteTypes {

    private static final Logger LOG = Logger.getLogger(RemoteTypes.class);
    static final int REREAD_SECONDS = 10;

    /** The outcome of {@link #undeclare}. */
    public enum Undeclared {
        REMOVED, NOT_DECLARED, CONFIGURED, STILL_USED
    }

    private final Set<String> configured;
    private final Set<String> handled;
    private final DataSource db;
    private final SignalChannel changes;
    /** A declared type's schema: its text, and the validator compiled from it. */
    private record Schema(String text, Validator validator) {
    }

    /** The declared types with their schemas (absent: none), as last read; replaced whole. */
    private volatile Map<String, Optional<Schema>> declared = Map.of();
    private volatile Set<String> names;
    private ScheduledExecutorService rereads;

    @Inject
    RemoteTypes(TaskfenceConfig config, TaskHandlers handlers, DataSource db, RedisDataSource redis,
            LockSettings settings) {
        this.configured = read(config.types(), handlers.types());
        this.handled = handlers.types();
        this.db = db;
        this.changes = new SignalChannel(redis, settings.keyPrefix() + ":types");
        this.names = configured;
    }

    /**
     * The types marked remote in the configuration, by name.
     *
     * @throws IllegalStateException naming the first remote type whose name is not a type name or that has a handler
     */
    static Set<String> read(Map<String, TaskfenceConfig.Type> settings, Set<String> handled) {
        Set<String> remote = new TreeSet<>();
        settings.forEach((type, setting) -> {
            if (!setting.remote()) {
                return;
            }
            if (!TaskHandlers.TYPE.matcher(type).matches()) {
                throw new IllegalStateException("taskfence.types." + type + ".remote: '" + type
                        + "' is no task type name; a name matches " + TaskHandlers.TYPE.pattern());
            }
            if (handled.contains(type)) {
                throw new IllegalStateException("taskfence.types." + type + ".remote: a handler of this service runs '"
                        + type + "' tasks; a type is run by its handler or by remote workers, not both");
            }
            remote.add(type);
        });
        return Collections.unmodifiableSet(remote);
    }

    void start(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent started) {
        rereads = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("remote-types").daemon().factory());
        // A message arrives on an event loop, which must not wait for PostgreSQL.
        changes.listen(type -> rereads.execute(this::reread), () -> rereads.execute(this::reread), rereads);
        rereads.scheduleWithFixedDelay(this::reread, 0, REREAD_SECONDS, TimeUnit.SECONDS);
    }

    void stop(@Observes ShutdownEvent stopped) {
        changes.close();
        if (rereads != null) {
            rereads.shutdownNow();
        }
    }

    /**
     * Whether {@code type} is remote; a type this replica does not know (and no handler here runs) makes it read the
     * table first: one small query, which only a type that is not there (a typo, say) costs each time.
     */
    public boolean contains(String type) {
        if (names.contains(type)) {
            return true;
        }
        if (handled.contains(type) || !TaskHandlers.TYPE.matcher(type).matches()) {
            return false;
        }
        if (!BlockingOperationControl.isBlockingAllowed()) {
            return false; // an event loop answers from what it knows; the submission checked there knew the type
        }
        reread();
        return names.contains(type);
    }

    /** The remote types, by name. */
    public Set<String> names() {
        return names;
    }

    /** The schema {@code type} was declared with through the API; empty for none, or for a type not declared so. */
    Optional<Validator> declaredSchema(String type) {
        return declared.getOrDefault(type, Optional.empty()).map(Schema::validator);
    }

    /**
     * Declares {@code type} remote, with {@code schema} (JSON Schema text, null for none) for its payloads, or changes
     * the schema of one declared before; every replica knows it once this returns or soon after (the announcement).
     *
     * @return true if the type was not declared before
     * @throws IllegalArgumentException why the type cannot be declared: its name, a handler here runs it, it is
     *         remote by the configuration, or the schema cannot be used
     */
    public boolean declare(String type, String schema, String by) {
        if (!TaskHandlers.TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("'" + type + "' is no task type name; a name matches "
                    + TaskHandlers.TYPE.pattern());
        }
        if (handled.contains(type)) {
            throw new IllegalArgumentException("a handler of this service runs '" + type + "' tasks; a type is run by "
                    + "its handler or by remote workers, not both");
        }
        if (configured.contains(type)) {
            throw new IllegalArgumentException("'" + type + "' is remote by the configuration (taskfence.types." + type
                    + ".remote), which only a new start changes");
        }
        if (schema != null) {
            PayloadSchemas.compile(type, schema, "schema");
        }
        boolean created;
        try (Connection connection = db.getConnection(); PreparedStatement upsert = connection.prepareStatement(
                "insert into remote_types (type, schema, declared_by) values (?, ?::jsonb, ?) on conflict (type) "
                        + "do update set schema = excluded.schema, declared_by = excluded.declared_by, "
                        + "declared_at = now() returning (xmax = 0) as created")) {
            upsert.setString(1, type);
            upsert.setString(2, schema);
            upsert.setString(3, by);
            try (ResultSet row = upsert.executeQuery()) {
                row.next();
                created = row.getBoolean("created");
            }
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
        reread();
        changes.publish(type);
        return created;
    }

    /**
     * Of the types declared through the API among {@code types}, those taken back since this replica read them. The
     * rows of the others are locked ({@code for key share}) until the caller's transaction ends, so that a type is not
     * taken back while tasks of it are being submitted: {@link #undeclare} locks the row before it looks for tasks.
     * Asks PostgreSQL nothing when none of {@code types} is a declared one.
     */
    public Set<String> lockDeclared(Connection connection, Collection<String> types) throws SQLException {
        Set<String> wanted = new TreeSet<>(types);
        wanted.retainAll(declared.keySet());
        if (wanted.isEmpty()) {
            return Set.of();
        }
        try (PreparedStatement lock = connection.prepareStatement("select type from remote_types "
                + "where type = any(?) order by type for key share")) {
            lock.setArray(1, connection.createArrayOf("text", wanted.toArray()));
            try (ResultSet row = lock.executeQuery()) {
                while (row.next()) {
                    wanted.remove(row.getString(1));
                }
            }
        }
        return wanted;
    }

    /**
     * Takes back a type declared through the API, with its pause if it had one, unless a task of it has not ended yet
     * (WAITING ones included: released later, they would find no one to run them either) or a schedule names it. The
     * type's row is locked first, so the submissions of it that hold it ({@link #lockDeclared}) have committed when the
     * check reads the tasks, and those after it find the type gone.
     */
    public Undeclared undeclare(String type) {
        if (configured.contains(type)) {
            return Undeclared.CONFIGURED;
        }
        try (Connection connection = db.getConnection()) {
            connection.setAutoCommit(false);
            try {
                Undeclared outcome = undeclare(connection, type);
                connection.commit();
                if (outcome == Undeclared.REMOVED) {
                    reread();
                    changes.publish(type);
                }
                return outcome;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    private static Undeclared undeclare(Connection connection, String type) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "select 1 from remote_types where type = ? for update")) {
            lock.setString(1, type);
            lock.executeQuery().close();
        }
        // A statement of its own: its snapshot, taken once the lock is held, sees the tasks of those that held it.
        try (PreparedStatement delete = connection.prepareStatement(
                "with used as (select exists (select 1 from tasks_due where type = ?) "
                        + "or exists (select 1 from tasks_in_flight where type = ?) "
                        + "or exists (select 1 from tasks_waiting w join tasks t on t.id = w.task_id "
                        + "where t.type = ? and t.status = 'WAITING') "
                        + "or exists (select 1 from schedules where type = ?) as used), "
                        + "removed as (delete from remote_types where type = ? and not (select used from used) "
                        + "returning type), "
                        + "unpaused as (delete from paused_types where type in (select type from removed)) "
                        + "select (select count(*) from removed) > 0 as removed, "
                        + "exists (select 1 from remote_types where type = ?) as declared")) {
            for (int i = 1; i <= 6; i++) {
                delete.setString(i, type);
            }
            try (ResultSet row = delete.executeQuery()) {
                row.next();
                // The statement's snapshot still holds a row it deleted: declared and not removed means used.
                return row.getBoolean("removed") ? Undeclared.REMOVED
                        : row.getBoolean("declared") ? Undeclared.STILL_USED : Undeclared.NOT_DECLARED;
            }
        }
    }

    /** Reads the declared types again; keeps the copy it has when PostgreSQL (or the table, before V19) is not there. */
    private synchronized void reread() {
        Map<String, Optional<Schema>> read = new HashMap<>();
        try (Connection connection = db.getConnection();
                PreparedStatement select = connection.prepareStatement("select type, schema::text from remote_types");
                ResultSet row = select.executeQuery()) {
            while (row.next()) {
                String type = row.getString(1);
                String text = row.getString(2);
                try {
                    read.put(type, text == null ? Optional.empty() : Optional.of(schema(type, text)));
                } catch (IllegalArgumentException unusable) {
                    // Declaring checks it, so only a row written otherwise: its tasks cannot be checked, so none is taken.
                    LOG.errorf("remote type '%s' is left out: %s", type, unusable.getMessage());
                }
            }
        } catch (SQLException e) {
            LOG.debugf("the declared remote types could not be read: %s", e.getMessage());
            return;
        } catch (RuntimeException e) { // also on the timer's thread, whose schedule one exception would end
            LOG.warnf(e, "the declared remote types could not be read");
            return;
        }
        read.keySet().removeAll(handled); // declared before this version had a handler for it: the handler runs it
        Set<String> all = new TreeSet<>(configured);
        all.addAll(read.keySet());
        declared = Map.copyOf(read);
        names = Collections.unmodifiableSet(all);
    }

    /** The declared schema {@code text}, compiled again only when it changed. */
    private Schema schema(String type, String text) {
        return declared.getOrDefault(type, Optional.empty()).filter(known -> known.text().equals(text))
                .orElseGet(() -> new Schema(text, PayloadSchemas.compile(type, text,
                        "the schema of remote type '" + type + "'")));
    }
}

package io.taskfence.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.handlers.TaskHandlers;
import io.taskfence.store.TaskStoreException;

/**
 * The registered task types (those with a handler here, and the remote ones) with their limits ({@link TypeLimits}) and pause flags. A pause is a row in
 * {@code paused_types}, so that every replica's dispatch sees it (DESIGN.md, "Queue (Redis)"); each change is one
 * conditional statement, and a repeated one changes nothing.
 */
@ApplicationScoped
public class TaskTypes {

    private final DataSource db;
    private final TypeLimits limits;
    private final RemoteTypes remote;
    private final Set<String> handled;

    TaskTypes(DataSource db, TaskHandlers handlers, TypeLimits limits, RemoteTypes remote) {
        this.db = db;
        this.limits = limits;
        this.remote = remote;
        this.handled = handlers.types();
    }

    /** Whether tasks of {@code type} can be submitted: a handler here or remote workers run them. */
    public boolean registered(String type) {
        return handled.contains(type) || remote.contains(type);
    }

    /** Whether {@code type} is registered by what this replica knows now: no read of PostgreSQL, unlike {@link #registered}. */
    public boolean knownHere(String type) {
        return handled.contains(type) || remote.names().contains(type);
    }

    /** The registered types, by name: the handlers' and the remote ones, which an admin may declare at any time. */
    public Set<String> names() {
        Set<String> all = new TreeSet<>(handled);
        all.addAll(remote.names());
        return Collections.unmodifiableSet(all);
    }

    /**
     * Pauses {@code type}: dispatch enqueues none of its tasks from the moment this returns (it waits for a
     * batch being read); those already enqueued or running go on.
     *
     * @return false if it was paused already
     */
    public boolean pause(String type, String by) {
        return update("insert into paused_types (type, paused_by) values (?, ?) on conflict (type) do nothing", type, by);
    }

    /** @return false if it was not paused */
    public boolean resume(String type) {
        return update("delete from paused_types where type = ?", type);
    }

    /** Every registered type, by name. */
    public List<TypeState> all() {
        return states(names());
    }

    /**
     * Every registered type, by name, with its limits and pause flag but none of the counts of every tenant's tasks
     * ({@link TypeState#withoutClusterCounts}): what a submit key sees, without reading the counts at all.
     */
    public List<TypeState> limitsOnly() {
        Set<String> paused = paused();
        return names().stream().map(type -> state(type, paused.contains(type), Map.of(), Map.of(),
                Map.of(), Map.of()).withoutClusterCounts()).toList();
    }

    /** The types that have a limit or are paused, by name: the ones worth a line in the stats. */
    public List<TypeState> controlled() {
        Set<String> types = new HashSet<>(limits.limited().keySet());
        types.addAll(paused());
        return states(types);
    }

    /** For each type with {@code max-per-key}, its concurrency groups at that limit now. */
    public Map<String, Long> keysAtLimit() {
        try (Connection connection = db.getConnection()) {
            Map<String, Long> counts = DispatchRoom.groupsAtLimit(connection, limits.limited());
            limits.limited().values().stream().filter(limit -> limit.maxPerKey().isPresent())
                    .forEach(limit -> counts.putIfAbsent(limit.type(), 0L));
            return counts;
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    /** For each type with {@code rate-per-key}, its concurrency groups the rate holds back now. */
    public Map<String, Long> keysRateLimited() {
        try (Connection connection = db.getConnection()) {
            Map<String, Long> counts = DispatchRoom.groupsRateLimited(connection, limits.limited(), clock(connection));
            limits.ratedPerKey().forEach(type -> counts.putIfAbsent(type, 0L));
            return counts;
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    private static OffsetDateTime clock(Connection connection) throws SQLException {
        try (PreparedStatement clock = connection.prepareStatement("select clock_timestamp()");
                ResultSet row = clock.executeQuery()) {
            row.next();
            return row.getObject(1, OffsetDateTime.class);
        }
    }

    private Set<String> paused() {
        try (Connection connection = db.getConnection();
                PreparedStatement select = connection.prepareStatement("select type from paused_types");
                ResultSet row = select.executeQuery()) {
            Set<String> paused = new HashSet<>();
            while (row.next()) {
                paused.add(row.getString(1));
            }
            return paused;
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    private List<TypeState> states(Set<String> types) {
        Set<String> paused = paused();
        try (Connection connection = db.getConnection()) {
            OffsetDateTime now = clock(connection);
            Map<String, Long> inFlight = DispatchRoom.inFlight(connection, types);
            Map<String, Long> started = DispatchRoom.started(connection, limits.limited(), now);
            Map<String, Long> groupsAtLimit = DispatchRoom.groupsAtLimit(connection, limits.limited());
            Map<String, Long> rateLimited = DispatchRoom.groupsRateLimited(connection, limits.limited(), now);
            return types.stream().sorted().map(type -> state(type, paused.contains(type), inFlight, started,
                    groupsAtLimit, rateLimited)).toList();
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }

    private TypeState state(String type, boolean paused, Map<String, Long> inFlight, Map<String, Long> started,
            Map<String, Long> groupsAtLimit, Map<String, Long> rateLimited) {
        TypeLimit limit = limits.of(type);
        return new TypeState(type, paused, remote.contains(type),
                limit.maxConcurrency().isPresent() ? limit.maxConcurrency().getAsInt() : null,
                limit.rate().map(Rate::toString).orElse(null),
                limit.maxPerKey().isPresent() ? limit.maxPerKey().getAsInt() : null,
                inFlight.getOrDefault(type, 0L),
                limit.rate().isPresent() ? started.getOrDefault(type, 0L) : null,
                limit.maxPerKey().isPresent() ? groupsAtLimit.getOrDefault(type, 0L) : null,
                limit.ratePerKey().map(Rate::toString).orElse(null),
                limit.ratePerKey().isPresent() ? rateLimited.getOrDefault(type, 0L) : null,
                Optional.ofNullable(limits.timeout(type, null)).map(TaskTypes::text).orElse(null));
    }

    /** A time-out as the API writes one: {@code <n>s} when whole seconds, else {@code <n>ms}. */
    private static String text(Duration timeout) {
        return timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + "s" : timeout.toMillis() + "ms";
    }

    private boolean update(String sql, String... parameters) {
        try (Connection connection = db.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            return statement.executeUpdate() > 0;
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }
}

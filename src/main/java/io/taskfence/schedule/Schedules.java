package io.taskfence.schedule;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.Task;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.OccurrenceTasks;
import io.taskfence.task.submit.JobSubmissions;

/**
 * The {@code schedules} table. Each write is one conditional statement: a name is taken once, an edit or a
 * materialisation applies only to the version it was computed from ({@code where name = ? and version = ?}),
 * so a write based on an older read changes nothing and says so. Materialisation also has the
 * occurrences' tasks submitted ({@link JobSubmissions#submitOccurrences}), in the same fenced transaction.
 */
@ApplicationScoped
public class Schedules {

    private static final String COLUMNS = "name, cron, cron_type, zone, type, payload, priority, max_attempts, paused, "
            + "misfire, next_fire_at, version, created_at, updated_at, owner, dedupe_key, dedupe_mode, timeout_ms";

    private final TaskDatabase database;
    private final JobSubmissions submissions;
    private final ObjectMapper json;

    Schedules(TaskDatabase database, JobSubmissions submissions, ObjectMapper json) {
        this.database = database;
        this.submissions = submissions;
        this.json = json;
    }

    /**
     * PostgreSQL's time: what schedules are read by (DESIGN.md, "Decisions", "Time from the servers"), so that a
     * replica whose clock is off neither makes occurrences early nor misses them.
     */
    public Instant now() {
        return database.inConnection(connection -> {
            try (PreparedStatement now = connection.prepareStatement("select clock_timestamp()");
                    ResultSet row = now.executeQuery()) {
                row.next();
                return row.getTimestamp(1).toInstant();
            }
        });
    }

    /** Stores a new schedule, owned by its {@code owner}; empty if the name is taken already. Its version is 1. */
    public Optional<Schedule> create(Schedule schedule) {
        return database.inConnection(connection -> {
            try (PreparedStatement insert = connection.prepareStatement("insert into schedules (name, cron, cron_type, "
                    + "zone, type, payload, priority, max_attempts, paused, misfire, next_fire_at, dedupe_key, dedupe_mode, "
                    + "timeout_ms, owner) values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (name) do "
                    + "nothing returning " + COLUMNS)) {
                insert.setString(1, schedule.name());
                bindFields(insert, 2, schedule);
                insert.setString(15, schedule.owner());
                return first(insert);
            }
        });
    }

    public Optional<Schedule> find(String name) {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select " + COLUMNS + " from schedules where name = ?")) {
                select.setString(1, name);
                return first(select);
            }
        });
    }

    /** Every schedule, by name. */
    public List<Schedule> all() {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select " + COLUMNS + " from schedules order by name")) {
                return read(select);
            }
        });
    }

    /**
     * Replaces the schedule's fields (all but its name, owner and creation time) with {@code changed}'s, if it is
     * still at {@code changed.version()}; its version goes up by one.
     *
     * @return the schedule as stored now; empty if it was deleted or changed since it was read
     */
    public Optional<Schedule> update(Schedule changed) {
        return database.inConnection(connection -> {
            try (PreparedStatement update = connection.prepareStatement("update schedules set cron = ?, cron_type = ?, "
                    + "zone = ?, type = ?, payload = ?::jsonb, priority = ?, max_attempts = ?, paused = ?, misfire = ?, "
                    + "next_fire_at = ?, dedupe_key = ?, dedupe_mode = ?, timeout_ms = ?, version = version + 1, "
                    + "updated_at = now() where name = ? and version = ? returning " + COLUMNS)) {
                bindFields(update, 1, changed);
                update.setString(14, changed.name());
                update.setLong(15, changed.version());
                return first(update);
            }
        });
    }

    /** Deletes the schedule; false if there is none of that name. The tasks it made stay. */
    public boolean delete(String name) {
        return database.inConnection(connection -> {
            try (PreparedStatement delete = connection.prepareStatement("delete from schedules where name = ?")) {
                delete.setString(1, name);
                return delete.executeUpdate() > 0;
            }
        });
    }

    /** Schedules not paused whose next occurrence is at or before {@code now}, the longest due first. */
    public List<Schedule> due(Instant now, int limit) {
        return database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select " + COLUMNS + " from schedules "
                    + "where not paused and next_fire_at <= ? order by next_fire_at limit ?")) {
                select.setTimestamp(1, Timestamp.from(now));
                select.setInt(2, limit);
                return read(select);
            }
        });
    }

    /**
     * In one transaction after the fence check: moves {@code schedule} on to {@code plan.next()} if it is still
     * the version read and not paused, and inserts a task for each of the plan's occurrences, owned by the
     * schedule's owner and keyed {@link Schedule#keyOf} among its tasks; an occurrence whose key is taken already
     * becomes no second task, and one that would take the owner past its quota none at all
     * ({@link JobSubmissions#submitOccurrences}).
     *
     * @return the tasks inserted and the occurrences the quota left out (none if the schedule had changed)
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public OccurrenceTasks materialise(FenceToken fence, Schedule schedule, FirePlan plan) {
        return database.fenced(fence, connection -> advance(connection, schedule, plan)
                ? insertTasks(connection, schedule, plan)
                : OccurrenceTasks.NONE);
    }

    private static boolean advance(Connection connection, Schedule schedule, FirePlan plan) throws SQLException {
        try (PreparedStatement advance = connection.prepareStatement("update schedules set next_fire_at = ?, "
                + "version = version + 1, updated_at = now() where name = ? and version = ? and not paused")) {
            advance.setTimestamp(1, plan.next().map(Timestamp::from).orElse(null));
            advance.setString(2, schedule.name());
            advance.setLong(3, schedule.version());
            return advance.executeUpdate() == 1;
        }
    }

    private OccurrenceTasks insertTasks(Connection connection, Schedule schedule, FirePlan plan) throws SQLException {
        List<NewTask> occurrences = plan.occurrences().stream().map(at -> new NewTask(schedule.type(),
                schedule.payload(), schedule.maxAttempts(), schedule.priority(), at, null, schedule.keyOf(at))
                .ownedBy(schedule.owner()).deduplicatedBy(schedule.dedupe()).timingOutAfter(schedule.timeout())).toList();
        return submissions.submitOccurrences(connection, occurrences);
    }

    // ---- plumbing

    /**
     * The fields after the name, from {@code first} on: cron ... next_fire_at, dedupe_key, dedupe_mode, timeout_ms (13
     * parameters).
     */
    private void bindFields(PreparedStatement statement, int first, Schedule schedule) throws SQLException {
        statement.setString(first, schedule.cron());
        statement.setString(first + 1, schedule.cronType().id());
        statement.setString(first + 2, schedule.zone().getId());
        statement.setString(first + 3, schedule.type());
        statement.setString(first + 4, write(schedule.payload()));
        statement.setInt(first + 5, schedule.priority());
        statement.setInt(first + 6, schedule.maxAttempts());
        statement.setBoolean(first + 7, schedule.paused());
        statement.setString(first + 8, schedule.misfire().id());
        statement.setTimestamp(first + 9, schedule.nextFireAt() == null ? null : Timestamp.from(schedule.nextFireAt()));
        statement.setString(first + 10, schedule.dedupe() == null ? null : schedule.dedupe().key());
        statement.setString(first + 11, schedule.dedupe() == null ? null : schedule.dedupe().mode().name().toLowerCase(
                Locale.ROOT));
        statement.setObject(first + 12, schedule.timeout() == null ? null : schedule.timeout().toMillis(), Types.BIGINT);
    }

    private Optional<Schedule> first(PreparedStatement statement) throws SQLException {
        return read(statement).stream().findFirst();
    }

    private List<Schedule> read(PreparedStatement statement) throws SQLException {
        List<Schedule> schedules = new ArrayList<>();
        try (ResultSet row = statement.executeQuery()) {
            while (row.next()) {
                schedules.add(new Schedule(row.getString("name"), row.getString("cron"),
                        CronType.of(row.getString("cron_type")).orElseThrow(), ZoneId.of(row.getString("zone")),
                        row.getString("type"), (ObjectNode) parse(row.getString("payload")), row.getInt("priority"),
                        row.getInt("max_attempts"), row.getBoolean("paused"),
                        Misfire.of(row.getString("misfire")).orElseThrow(), instant(row, "next_fire_at"),
                        row.getLong("version"), instant(row, "created_at"), instant(row, "updated_at"),
                        row.getString("owner"), dedupe(row), timeout(row)));
            }
        }
        return schedules;
    }

    private static NewTask.Dedupe dedupe(ResultSet row) throws SQLException {
        String mode = row.getString("dedupe_mode");
        return mode == null ? null : new NewTask.Dedupe(row.getString("dedupe_key"),
                NewTask.Dedupe.Mode.valueOf(mode.toUpperCase(Locale.ROOT)), null, null);
    }

    private static Duration timeout(ResultSet row) throws SQLException {
        Long millis = row.getObject("timeout_ms", Long.class);
        return millis == null ? null : Duration.ofMillis(millis);
    }

    private static Instant instant(ResultSet row, String column) throws SQLException {
        Timestamp value = row.getTimestamp(column);
        return value == null ? null : value.toInstant();
    }

    private String write(ObjectNode payload) {
        try {
            return json.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON", e);
        }
    }

    private JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("PostgreSQL returned JSON that cannot be read", e);
        }
    }
}

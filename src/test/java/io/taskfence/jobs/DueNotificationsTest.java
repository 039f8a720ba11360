package io.taskfence.jobs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.scheduler.Scheduler;
import io.quarkus.scheduler.Trigger;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.lock.LockSettings;
import io.taskfence.queue.TaskQueue;
import io.taskfence.task.Sql;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.TestServers;
import io.vertx.mutiny.redis.client.Response;

/**
 * A task inserted by plain SQL, by anything but Taskfence, is dispatched at once, not at the next tick: the insert
 * trigger notifies and every replica's listener nudges its dispatcher. The tick is an hour here, so only the
 * notification can move it; Taskfence's own inserts (its connections' application name) notify nobody.
 */
@QuarkusTest
@TestServers
@TestProfile(DueNotificationsTest.HourlyTick.class)
class DueNotificationsTest {

    public static final class HourlyTick implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.dispatch.enabled", "true",
                    "taskfence.dispatch.interval", "1h",
                    "taskfence.recovery.interval", "1h");
        }
    }

    @Inject
    Scheduler scheduler;
    @Inject
    TaskQueue queue;
    @Inject
    DataSource db;
    @Inject
    RedisDataSource redis;
    @Inject
    LockSettings settings;

    private final List<UUID> made = new ArrayList<>();

    @Test
    void aTaskInsertedBySqlIsDispatchedWithoutWaitingForTheTick() throws Exception {
        queue.ensureGroup();
        // The first tick comes a second after start-up; once it has fired, the next is an hour away.
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Trigger tick = scheduler.getScheduledJob("dispatch");
            return tick.getPreviousFireTime() != null
                    && tick.getNextFireTime().isAfter(Instant.now().plus(Duration.ofMinutes(10)));
        });

        UUID bySql = insert(foreignConnection());
        await().atMost(Duration.ofSeconds(20)).until(() -> status(bySql).equals("ENQUEUED"));
        awaitQueued(bySql);
    }

    @Test
    void onlyInsertsByOthersThanTaskfenceNotify() throws Exception {
        try (Connection listening = foreignConnection()) {
            String channel = Sql.value(db, "select 'taskfence_due_' || md5(current_schema())");
            try (Statement listen = listening.createStatement()) {
                listen.execute("listen \"" + channel + "\"");
            }
            UUID byTaskfence = insert(db.getConnection()); // its application name is 'taskfence'
            UUID bySql = insert(foreignConnection());
            // Delivered in commit order: once the second insert's notification is in, the first's would be too.
            PGConnection notifications = listening.unwrap(PGConnection.class);
            List<PGNotification> received = new ArrayList<>();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                PGNotification[] got = notifications.getNotifications(100);
                if (got != null) {
                    received.addAll(List.of(got));
                }
                return !received.isEmpty();
            });
            assertEquals(List.of(channel), received.stream().map(PGNotification::getName).toList());
            awaitQueued(byTaskfence, bySql); // the run the notification started took both
        }
    }

    /**
     * Until the tasks are ENQUEUED and their messages pushed: after that no dispatch run touches them (the tick is an
     * hour away), so the clean-up cannot race a push.
     */
    private void awaitQueued(UUID... tasks) {
        List<UUID> ids = List.of(tasks);
        await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch(id -> status(id).equals("ENQUEUED"))
                && queue.queuedTaskIds().containsAll(ids));
    }

    /** A connection to the application's schema as another program would make it, without its application name. */
    private Connection foreignConnection() throws Exception {
        return DriverManager.getConnection(PostgresSchema.DATABASE_URL + "?currentSchema="
                + Sql.value(db, "select current_schema()"), PostgresSchema.USER, "");
    }

    private UUID insert(Connection connection) throws Exception {
        UUID id = UUID.randomUUID();
        made.add(id);
        try (connection; PreparedStatement insert = connection.prepareStatement(
                "insert into tasks (id, type, payload, max_attempts) values (?, 'noop', '{}', 3)")) {
            insert.setObject(1, id);
            insert.executeUpdate();
        }
        return id;
    }

    private String status(UUID id) {
        return Sql.value(db, "select status from tasks where id = ?", id);
    }

    /**
     * No worker runs here to take the messages of the tasks dispatched: they are removed with their tasks, or the next
     * test class would find messages whose tasks are gone (QueueDepthTest compares the two; CI once failed so, when a
     * push came after the tasks had been deleted).
     */
    @AfterEach
    void removeTheTasksAndTheirMessages() {
        List<TaskQueue.Message> theirs = new ArrayList<>();
        for (Response entry : redis.execute("XRANGE", settings.keyPrefix() + ":queue:{" + TaskQueue.DISPATCH_LOCK + "}",
                "-", "+")) {
            UUID task = UUID.fromString(entry.get(1).get(1).toString()); // the entry's fields: task <id>
            if (made.contains(task)) {
                theirs.add(new TaskQueue.Message(entry.get(0).toString(), List.of(task)));
            }
        }
        queue.done(theirs);
        Sql.run(db, "delete from tasks where id = any(?)", (Object) made.toArray(UUID[]::new));
    }
}

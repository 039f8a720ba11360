package io.taskfence.jobs;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.TaskfenceConfig;

/**
 * Wakes this replica's dispatcher when tasks were inserted by anything but Taskfence itself: the insert trigger
 * (V12) notifies the schema's channel, which one pooled connection listens on for the replica's lifetime.
 * Taskfence's own submissions wake it in process ({@code TasksBecameDue}). When the connection breaks (PostgreSQL
 * restarted), it listens again after a pause; an insert meanwhile waits for the next tick, as it always could.
 */
@ApplicationScoped
class DueNotifications {

    private static final Logger LOG = Logger.getLogger(DueNotifications.class);
    /** How long one wait for a notification lasts: how soon a stop is noticed. */
    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final Duration RETRY_AFTER = Duration.ofSeconds(2);

    private final DataSource db;
    private final Dispatcher dispatcher;
    private final boolean enabled;
    private volatile boolean stopping;
    private volatile Thread listener;

    DueNotifications(DataSource db, Dispatcher dispatcher, TaskfenceConfig config) {
        this.db = db;
        this.dispatcher = dispatcher;
        this.enabled = config.dispatch().enabled();
    }

    void start(@Observes StartupEvent started) {
        if (enabled) {
            listener = Thread.ofPlatform().name("due-notifications").daemon().start(this::listen);
        }
    }

    /** Lets the listener end its wait and give its connection back before the pool closes (an interrupt would break it). */
    void stop(@Observes ShutdownEvent shutdown) throws InterruptedException {
        stopping = true;
        Thread running = listener;
        if (running != null) {
            running.join(WAIT.plusSeconds(1));
        }
    }

    private void listen() {
        while (!stopping) {
            try (Connection connection = db.getConnection()) {
                try {
                    listenOn(connection);
                } finally {
                    unlisten(connection);
                }
            } catch (SQLException | RuntimeException e) {
                if (!stopping) {
                    LOG.debugf("listening for inserted tasks failed (%s); again in %s", e.getMessage(), RETRY_AFTER);
                    pause();
                }
            }
        }
    }

    private void listenOn(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
        String channel;
        try (Statement query = connection.createStatement();
                ResultSet row = query.executeQuery("select 'taskfence_due_' || md5(current_schema())")) {
            row.next();
            channel = row.getString(1);
        }
        try (Statement listen = connection.createStatement()) {
            listen.execute("listen \"" + channel + "\"");
        }
        PGConnection notifications = connection.unwrap(PGConnection.class);
        while (!stopping) {
            PGNotification[] received = notifications.getNotifications(Math.toIntExact(WAIT.toMillis()));
            if (received != null && received.length > 0) {
                dispatcher.nudge();
            }
        }
    }

    /** The connection goes back to the pool: it must not keep the registration (nor pile up notifications). */
    private static void unlisten(Connection connection) {
        try (Statement unlisten = connection.createStatement()) {
            unlisten.execute("unlisten *");
        } catch (SQLException broken) {
            // a broken connection is discarded by the pool, with its registration
        }
    }

    private static void pause() {
        try {
            Thread.sleep(RETRY_AFTER);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

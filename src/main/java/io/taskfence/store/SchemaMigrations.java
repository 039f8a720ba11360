package io.taskfence.store;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Optional;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * Applies the Flyway migrations of the task table. A replica must start, and stay up, while PostgreSQL
 * is down (a restart loop helps nobody), so an attempt that could not reach PostgreSQL is retried in the
 * background with a growing pause until it succeeds; until then the replica reports not ready. So is an
 * attempt that lost a deadlock or a lock wait to another session's statement (a migration locks tables
 * other replicas' statements use). Any other failure (a changed migration, missing rights) cannot mend
 * itself: it is logged as an error and not retried, and the startup check fails, so that the pod's
 * restarts show it.
 */
@ApplicationScoped
public class SchemaMigrations {

    private static final Logger LOG = Logger.getLogger(SchemaMigrations.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(15);

    /** Whether the schema is migrated; if not, whether it is still being tried, and why not. */
    public record State(boolean applied, boolean retrying, String detail) {
    }

    private final Flyway flyway;
    private volatile State state = new State(false, true, "not migrated yet");
    private volatile Thread retrying;

    SchemaMigrations(Flyway flyway) {
        this.flyway = flyway;
    }

    /** First, before the jobs and workers start: with PostgreSQL up, they never see an old schema. */
    void migrateAtStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent started) {
        if (!tryMigrate() && state.retrying()) {
            retrying = Thread.ofPlatform().name("schema-migrations").daemon().start(this::retryUntilApplied);
        }
    }

    public State state() {
        return state;
    }

    private void retryUntilApplied() {
        Duration pause = FIRST_RETRY;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            }
            if (tryMigrate() || !state.retrying()) {
                return;
            }
            pause = pause.multipliedBy(2).compareTo(LONGEST_RETRY) > 0 ? LONGEST_RETRY : pause.multipliedBy(2);
        }
    }

    private boolean tryMigrate() {
        try {
            int applied = flyway.migrate().migrationsExecuted;
            state = new State(true, false, "schema at version " + flyway.info().current().getVersion());
            if (applied > 0) {
                LOG.infof("applied %d schema migrations; %s", applied, state.detail());
            }
            return true;
        } catch (RuntimeException e) {
            String why = firstLine(e) + sqlCause(e).map(sql -> " (" + firstLine(sql) + ")").orElse("");
            if (unreachable(e)) {
                state = new State(false, true, "migrations not applied: " + why);
                LOG.warnf("cannot reach PostgreSQL to migrate the schema; retrying in the background: %s", why);
            } else if (lostToAnotherSession(e)) {
                state = new State(false, true, "migrations not applied: " + why);
                LOG.warnf("a schema migration lost a lock to another session; retrying in the background: %s", why);
            } else {
                state = new State(false, false, "migrations failed: " + why);
                LOG.errorf(e, "the schema migrations failed, and retrying cannot mend it");
            }
            return false;
        }
    }

    /** Whether {@code failure} says PostgreSQL could not be reached, as opposed to refusing the migration. */
    private static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().equals("57P03"))) {
                return true; // connection exceptions; 57P03: the server is starting up
            }
            if (cause instanceof SQLTransientConnectionException || cause instanceof ConnectException
                    || cause instanceof SocketTimeoutException || cause instanceof UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code failure} was a deadlock, a serialization failure or a lock wait PostgreSQL gave up on. */
    private static boolean lostToAnotherSession(Throwable failure) {
        return sqlCause(failure).map(SQLException::getSQLState)
                .filter(state -> state.equals("40P01") || state.equals("40001") || state.equals("55P03")).isPresent();
    }

    /** What PostgreSQL said, under Flyway's "Failed to execute script". */
    private static Optional<SQLException> sqlCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return Optional.of(sql);
            }
        }
        return Optional.empty();
    }

    private static String firstLine(Throwable failure) {
        return String.valueOf(failure.getMessage()).lines().findFirst().orElse("");
    }

    @PreDestroy
    void stop() {
        Thread thread = retrying;
        if (thread != null) {
            thread.interrupt();
        }
    }
}

package io.taskfence.task;

import java.time.Duration;

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
 * is down (a restart loop helps nobody), so a failed first attempt is retried in the background with a
 * growing pause until it succeeds; until then the replica reports not ready.
 */
@ApplicationScoped
public class SchemaMigrations {

    private static final Logger LOG = Logger.getLogger(SchemaMigrations.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LONGEST_RETRY = Duration.ofSeconds(15);

    /** Whether the schema is migrated, and if not, why. */
    public record State(boolean applied, String detail) {
    }

    private final Flyway flyway;
    private volatile State state = new State(false, "not migrated yet");
    private volatile Thread retrying;

    SchemaMigrations(Flyway flyway) {
        this.flyway = flyway;
    }

    /** First, before the jobs and workers start: with PostgreSQL up, they never see an old schema. */
    void migrateAtStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent started) {
        if (!tryMigrate()) {
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
            if (tryMigrate()) {
                return;
            }
            pause = pause.multipliedBy(2).compareTo(LONGEST_RETRY) > 0 ? LONGEST_RETRY : pause.multipliedBy(2);
        }
    }

    private boolean tryMigrate() {
        try {
            int applied = flyway.migrate().migrationsExecuted;
            state = new State(true, "schema at version " + flyway.info().current().getVersion());
            if (applied > 0) {
                LOG.infof("applied %d schema migrations; %s", applied, state.detail());
            }
            return true;
        } catch (RuntimeException e) {
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            state = new State(false, "migrations not applied: " + why);
            LOG.warnf("cannot migrate the schema yet (PostgreSQL down?); retrying in the background: %s", why);
            return false;
        }
    }

    @PreDestroy
    void stop() {
        Thread thread = retrying;
        if (thread != null) {
            thread.interrupt();
        }
    }
}

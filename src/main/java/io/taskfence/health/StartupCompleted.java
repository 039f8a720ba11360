package io.taskfence.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Startup;

import io.quarkus.runtime.StartupEvent;
import io.taskfence.store.SchemaMigrations;

/**
 * Started once start-up has run to its end. It does not wait for Redis or PostgreSQL: a replica whose
 * servers are down has still started, and says so through readiness instead of being restarted. It fails
 * only when the schema migrations failed in a way no retry mends, so that the pod's restarts show it.
 */
@Startup
@ApplicationScoped
class StartupCompleted implements HealthCheck {

    private final SchemaMigrations migrations;
    private volatile boolean started;

    StartupCompleted(SchemaMigrations migrations) {
        this.migrations = migrations;
    }

    void onStart(@Observes StartupEvent event) {
        started = true;
    }

    @Override
    public HealthCheckResponse call() {
        SchemaMigrations.State schema = migrations.state();
        boolean schemaFailed = !schema.applied() && !schema.retrying();
        return HealthCheckResponse.named("started").status(started && !schemaFailed)
                .withData("schema", schema.detail()).build();
    }
}

package io.taskfence.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.taskfence.store.SchemaMigrations;

/**
 * Ready only once the task table's migrations are applied. Redis and PostgreSQL answering are the
 * readiness checks of their Quarkus extensions.
 */
@Readiness
@ApplicationScoped
class SchemaReadiness implements HealthCheck {

    private final SchemaMigrations migrations;

    SchemaReadiness(SchemaMigrations migrations) {
        this.migrations = migrations;
    }

    @Override
    public HealthCheckResponse call() {
        SchemaMigrations.State state = migrations.state();
        return HealthCheckResponse.named("schema").status(state.applied()).withData("detail", state.detail()).build();
    }
}

package io.taskfence.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Startup;

import io.quarkus.runtime.StartupEvent;

/**
 * Started once start-up has run to its end. It does not wait for Redis or PostgreSQL: a replica whose
 * servers are down has still started, and says so through readiness instead of being restarted.
 */
@Startup
@ApplicationScoped
class StartupCompleted implements HealthCheck {

    private volatile boolean started;

    void onStart(@Observes StartupEvent event) {
        started = true;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("started").status(started).build();
    }
}

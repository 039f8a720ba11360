package io.taskfence.health;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceMetrics;
import io.taskfence.store.ReadDatabase;

/**
 * The two connection pools (DESIGN.md, "REST API", "Bulkheads"): for each, the connections in use, its size and the
 * requests waiting for one. Not ready while the data pool is exhausted (all in use and some waiting): heartbeats,
 * completions and submissions queue behind each other, and a load balancer should send the replica no more. An
 * exhausted reads pool is reported but leaves the replica ready: it is the bulkhead at work (searches queue, the
 * data path does not), and taking the replica out would stop its submissions for a flood of searches.
 */
@Readiness
@ApplicationScoped
class PoolReadiness implements HealthCheck {

    private final AgroalDataSource data;
    private final AgroalDataSource reads;

    PoolReadiness(AgroalDataSource data, @io.quarkus.agroal.DataSource(ReadDatabase.POOL) AgroalDataSource reads) {
        this.data = data;
        this.reads = reads;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder answer = HealthCheckResponse.named("connection pools");
        boolean dataExhausted = report(answer, "data", data);
        report(answer, "reads", reads);
        return answer.status(!dataExhausted).build();
    }

    /** Adds the pool's figures to {@code answer}; whether it is exhausted. */
    private static boolean report(HealthCheckResponseBuilder answer, String name, AgroalDataSource pool) {
        AgroalDataSourceMetrics metrics = pool.getMetrics();
        int max = pool.getConfiguration().connectionPoolConfiguration().maxSize();
        boolean exhausted = metrics.activeCount() >= max && metrics.awaitingCount() > 0;
        answer.withData(name + ".active", metrics.activeCount()).withData(name + ".max", max)
                .withData(name + ".awaiting", metrics.awaitingCount()).withData(name + ".exhausted", exhausted);
        return exhausted;
    }
}

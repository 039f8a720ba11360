package io.taskfence.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

import io.netty.util.concurrent.EventExecutor;
import io.taskfence.worker.Workers;
import io.vertx.core.Vertx;

/**
 * Alive while this process can still do work: every Vert.x event loop runs a task handed to it within a
 * few seconds, and the worker's queue reader is running. It deliberately asks nothing of Redis or
 * PostgreSQL: a restart cannot mend a server that is down, and restarting every replica during a
 * Redis blip would turn the blip into an outage. (A wedged worker pool shows too: this check, like every
 * health check, runs on it, so the probe times out.)
 */
@Liveness
@ApplicationScoped
class ProcessLiveness implements HealthCheck {

    private static final Duration EVENT_LOOP_DEADLINE = Duration.ofSeconds(3);

    private final Vertx vertx;
    private final Workers workers;

    ProcessLiveness(Vertx vertx, Workers workers) {
        this.vertx = vertx;
        this.workers = workers;
    }

    @Override
    public HealthCheckResponse call() {
        int wedged = eventLoopsNotAnswering();
        boolean readerDied = workers.readerDied();
        return HealthCheckResponse.named("process").status(wedged == 0 && !readerDied)
                .withData("eventLoopsNotAnswering", wedged)
                .withData("taskReader", readerDied ? "died" : "running or not enabled").build();
    }

    private int eventLoopsNotAnswering() {
        List<Future<?>> pings = new ArrayList<>();
        for (EventExecutor loop : vertx.nettyEventLoopGroup()) {
            pings.add(loop.submit(() -> {
            }));
        }
        long deadline = System.nanoTime() + EVENT_LOOP_DEADLINE.toNanos();
        int wedged = 0;
        for (Future<?> ping : pings) {
            try {
                ping.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                wedged++;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                wedged++;
            }
        }
        return wedged;
    }
}

package io.taskfence.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.arc.lookup.LookupIfProperty;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/**
 * {@code guarded-run}, for tests of the processing lease: records each run's start and end (wall clock, which
 * PostgreSQL on this host shares) and whether it was interrupted. With {@code payload.blockFirst} the first
 * attempt runs until interrupted (at most a minute); with {@code payload.stubborn} as well, it goes on after
 * the interrupt until the test {@linkplain #releaseStubborn() releases} it. Other runs take 100 ms. Only
 * registered where {@value #ENABLED} is true.
 */
@ApplicationScoped
@LookupIfProperty(name = GuardedRunHandler.ENABLED, stringValue = "true")
public class GuardedRunHandler implements TaskHandler {

    static final String ENABLED = "taskfence-test.guarded-run-handler";

    record Run(UUID taskId, int attempt, Instant started, Instant ended, boolean interrupted) {
        boolean overlaps(Run other) {
            return started.isBefore(other.ended) && other.started.isBefore(ended);
        }
    }

    private record Key(UUID taskId, int attempt) {
    }

    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final Map<Key, CountDownLatch> starts = new ConcurrentHashMap<>();
    private final Map<Key, CountDownLatch> interrupts = new ConcurrentHashMap<>();
    private final CountDownLatch stubbornRelease = new CountDownLatch(1);

    @Override
    public String type() {
        return "guarded-run";
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        Key key = new Key(work.taskId(), work.attempt());
        Instant started = Instant.now();
        boolean interrupted = false;
        latch(starts, key).countDown();
        try {
            Thread.sleep(work.attempt() == 1 && work.payload().path("blockFirst").asBoolean()
                    ? Duration.ofMinutes(1) : Duration.ofMillis(100));
        } catch (InterruptedException e) {
            interrupted = true;
            latch(interrupts, key).countDown();
            if (work.payload().path("stubborn").asBoolean()) {
                stubbornRelease.await(1, TimeUnit.MINUTES); // the interrupt was consumed: this wait is not cut short
            }
        } finally {
            runs.add(new Run(work.taskId(), work.attempt(), started, Instant.now(), interrupted));
        }
        if (interrupted) {
            throw new InterruptedException();
        }
        return TaskOutcome.success(null);
    }

    List<Run> runsOf(UUID taskId) {
        return runs.stream().filter(run -> run.taskId().equals(taskId)).toList();
    }

    boolean awaitStart(UUID taskId, int attempt, Duration atMost) throws InterruptedException {
        return latch(starts, new Key(taskId, attempt)).await(atMost.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean awaitInterrupt(UUID taskId, int attempt, Duration atMost) throws InterruptedException {
        return latch(interrupts, new Key(taskId, attempt)).await(atMost.toMillis(), TimeUnit.MILLISECONDS);
    }

    void releaseStubborn() {
        stubbornRelease.countDown();
    }

    private static CountDownLatch latch(Map<Key, CountDownLatch> latches, Key key) {
        return latches.computeIfAbsent(key, any -> new CountDownLatch(1));
    }
}

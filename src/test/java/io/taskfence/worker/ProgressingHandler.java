package io.taskfence.worker;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.arc.lookup.LookupIfProperty;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/**
 * {@code progressing}, for tests of progress reports: an attempt reports {@code {"done": i, "total": n}} for i = 1..n
 * ({@code payload.reports}, as fast as it can), says it has ({@link #awaitReported}), then waits until the test
 * {@linkplain #release releases} the task (at most a minute), reports {@code payload.reportsAfterRelease} more at once
 * and succeeds, or fails with {@code payload.failFirst} on attempt 1. Only registered where {@value #ENABLED} is true.
 */
@ApplicationScoped
@LookupIfProperty(name = ProgressingHandler.ENABLED, stringValue = "true")
public class ProgressingHandler implements TaskHandler {

    static final String ENABLED = "taskfence-test.progressing-handler";

    private record Key(UUID taskId, int attempt) {
    }

    private final Map<Key, CountDownLatch> reported = new ConcurrentHashMap<>();
    private final Map<UUID, CountDownLatch> released = new ConcurrentHashMap<>();

    @Override
    public String type() {
        return "progressing";
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        int reports = work.payload().path("reports").asInt(0);
        int afterRelease = work.payload().path("reportsAfterRelease").asInt(0);
        report(work, 1, reports, reports + afterRelease);
        latch(reported, new Key(work.taskId(), work.attempt())).countDown();
        if (work.attempt() == 1 && work.payload().path("failFirst").asBoolean()) {
            return TaskOutcome.failure("the first attempt fails");
        }
        latch(released, work.taskId()).await(1, TimeUnit.MINUTES);
        report(work, reports + 1, reports + afterRelease, reports + afterRelease);
        return TaskOutcome.success(null);
    }

    private static void report(Work work, int from, int to, int total) {
        for (int done = from; done <= to; done++) {
            work.progress(JsonNodeFactory.instance.objectNode().put("done", done).put("total", total)
                    .put("attempt", work.attempt()));
        }
    }

    boolean awaitReported(UUID taskId, int attempt, Duration atMost) throws InterruptedException {
        return latch(reported, new Key(taskId, attempt)).await(atMost.toMillis(), TimeUnit.MILLISECONDS);
    }

    void release(UUID taskId) {
        latch(released, taskId).countDown();
    }

    private static <K> CountDownLatch latch(Map<K, CountDownLatch> latches, K key) {
        return latches.computeIfAbsent(key, any -> new CountDownLatch(1));
    }
}

package io.taskfence.handlers;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskOutcome;

/** {@code sleep}: sleeps {@code payload.ms} milliseconds (at most an hour), then succeeds. */
@ApplicationScoped
public class SleepHandler implements TaskHandler {

    private static final long MAX_MS = 3_600_000;

    @Override
    public String type() {
        return "sleep";
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        long ms = work.payload().path("ms").asLong(0);
        if (ms < 0 || ms > MAX_MS) {
            return TaskOutcome.permanentFailure("payload.ms must be from 0 to " + MAX_MS + ", was " + ms);
        }
        Thread.sleep(ms);
        return TaskOutcome.success(null);
    }
}

package io.taskfence.handlers;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskOutcome;

/** {@code flaky}: fails its first {@code payload.failTimes} attempts, then succeeds. */
@ApplicationScoped
public class FlakyHandler implements TaskHandler {

    @Override
    public String type() {
        return "flaky";
    }

    @Override
    public TaskOutcome handle(Work work) {
        int failTimes = work.payload().path("failTimes").asInt(0);
        if (work.attempt() <= failTimes) {
            return TaskOutcome.failure("flaky: attempt " + work.attempt() + " of " + failTimes + " planned failures");
        }
        return TaskOutcome.success(null);
    }
}

package io.taskfence.handlers;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskOutcome;

/** {@code noop}: succeeds at once, with the payload as its result. */
@ApplicationScoped
public class NoopHandler implements TaskHandler {

    @Override
    public String type() {
        return "noop";
    }

    @Override
    public TaskOutcome handle(Work work) {
        return TaskOutcome.success(work.payload());
    }
}

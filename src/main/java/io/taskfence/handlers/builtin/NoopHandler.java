package io.taskfence.handlers.builtin;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

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

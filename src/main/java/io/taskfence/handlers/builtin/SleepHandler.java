package io.taskfence.handlers.builtin;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.arc.lookup.LookupIfProperty;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/** {@code sleep}: sleeps {@code payload.ms} milliseconds (0 when absent, at most an hour), then succeeds. */
@ApplicationScoped
@LookupIfProperty(name = "taskfence.handlers.demo.enabled", stringValue = "true")
public class SleepHandler implements TaskHandler {

    private static final long MAX_MS = 3_600_000;

    @Override
    public String type() {
        return "sleep";
    }

    @Override
    public List<String> payloadProblems(ObjectNode payload) {
        JsonNode ms = payload.path("ms");
        if (ms.isMissingNode() || ms.isIntegralNumber() && ms.canConvertToLong() && ms.asLong() >= 0
                && ms.asLong() <= MAX_MS) {
            return List.of();
        }
        return List.of("payload.ms must be a whole number from 0 to " + MAX_MS + ", not " + ms);
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        List<String> problems = payloadProblems(work.payload());
        if (!problems.isEmpty()) {
            return TaskOutcome.permanentFailure(String.join("; ", problems));
        }
        Thread.sleep(work.payload().path("ms").asLong(0));
        return TaskOutcome.success(null);
    }
}

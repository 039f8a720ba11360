package io.taskfence.handlers.builtin;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.arc.lookup.LookupIfProperty;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/**
 * {@code sleep}: sleeps {@code payload.ms} milliseconds (0 when absent, at most an hour), then succeeds; a sleep over a
 * second reports its progress ({@code done}, {@code total} in ms) after each second.
 */
@ApplicationScoped
@LookupIfProperty(name = "taskfence.handlers.demo.enabled", stringValue = "true")
public class SleepHandler implements TaskHandler {

    private static final long MAX_MS = 3_600_000;
    private static final long STEP_MS = 1_000;

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
        long total = work.payload().path("ms").asLong(0);
        // A second at a time, each one reported: a long sleep shows how far it has come.
        for (long slept = 0; slept < total; ) {
            long step = Math.min(STEP_MS, total - slept);
            Thread.sleep(step);
            slept += step;
            if (total > STEP_MS) {
                work.progress(JsonNodeFactory.instance.objectNode().put("done", slept).put("total", total)
                        .put("message", "slept " + slept + " of " + total + " ms"));
            }
        }
        return TaskOutcome.success(null);
    }
}

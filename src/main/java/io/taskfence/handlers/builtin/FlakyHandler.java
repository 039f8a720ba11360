package io.taskfence.handlers.builtin;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.arc.lookup.LookupIfProperty;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/** {@code flaky}: fails its first {@code payload.failTimes} attempts (0 when absent), then succeeds. */
@ApplicationScoped
@LookupIfProperty(name = "taskfence.handlers.demo.enabled", stringValue = "true")
public class FlakyHandler implements TaskHandler {

    @Override
    public String type() {
        return "flaky";
    }

    @Override
    public List<String> payloadProblems(ObjectNode payload) {
        JsonNode failTimes = payload.path("failTimes");
        if (failTimes.isMissingNode() || failTimes.isIntegralNumber() && failTimes.canConvertToInt()
                && failTimes.asInt() >= 0) {
            return List.of();
        }
        return List.of("payload.failTimes must be a whole number from 0 to " + Integer.MAX_VALUE + ", not "
                + failTimes);
    }

    @Override
    public TaskOutcome handle(Work work) {
        List<String> problems = payloadProblems(work.payload());
        if (!problems.isEmpty()) {
            return TaskOutcome.permanentFailure(String.join("; ", problems));
        }
        int failTimes = work.payload().path("failTimes").asInt(0);
        if (work.attempt() <= failTimes) {
            return TaskOutcome.failure("flaky: attempt " + work.attempt() + " of " + failTimes + " planned failures");
        }
        return TaskOutcome.success(null);
    }
}

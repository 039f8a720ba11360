package io.taskfence.handlers.builtin;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.arc.lookup.LookupIfProperty;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;

/**
 * {@code large-result}, for the tests of a callback's bound: succeeds with {@code {"text": "xxx..."}}, the text
 * {@code payload.chars} long, and fails with an error that long when {@code payload.fail}. Only registered where
 * {@value #ENABLED} is true.
 */
@ApplicationScoped
@LookupIfProperty(name = LargeResultHandler.ENABLED, stringValue = "true")
public class LargeResultHandler implements TaskHandler {

    public static final String ENABLED = "taskfence-test.large-result-handler";

    @Override
    public String type() {
        return "large-result";
    }

    @Override
    public TaskOutcome handle(Work work) {
        String text = "x".repeat(work.payload().path("chars").asInt());
        return work.payload().path("fail").asBoolean() ? TaskOutcome.permanentFailure(text)
                : TaskOutcome.success(JsonNodeFactory.instance.objectNode().put("text", text));
    }
}

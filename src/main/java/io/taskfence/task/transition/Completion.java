package io.taskfence.task.transition;

import com.fasterxml.jackson.databind.JsonNode;

/** An attempt that succeeded: its claim and its handler's result (may be null). */
public record Completion(Claim claim, JsonNode result) {
}

package io.taskfence.handlers;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;

/** How a handler's attempt ended (DESIGN.md, "Handlers"). */
public sealed interface TaskOutcome {

    /** Done; {@code result} (may be null) is stored with the task. */
    record Success(JsonNode result) implements TaskOutcome {
    }

    /** Failed; retried after a backoff while attempts remain. */
    record Failure(String error) implements TaskOutcome {
    }

    /** Failed in a way no retry can mend (e.g. the request was rejected): straight to DEAD. */
    record PermanentFailure(String error) implements TaskOutcome {
    }

    /** Not ready yet (an awaited result is not there): poll again after {@code delay}; not an attempt. */
    record Later(Duration delay) implements TaskOutcome {
    }

    static TaskOutcome success(JsonNode result) {
        return new Success(result);
    }

    static TaskOutcome failure(String error) {
        return new Failure(error);
    }

    static TaskOutcome permanentFailure(String error) {
        return new PermanentFailure(error);
    }

    static TaskOutcome later(Duration delay) {
        return new Later(delay);
    }
}

package io.taskfence.client;

import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/** The service refused a request: {@link #status()} is the HTTP status, {@link #problem()} its problem+json body. */
public class TaskfenceException extends RuntimeException {

    private final int status;
    private final transient JsonNode problem;
    private final Duration retryAfter;

    public TaskfenceException(int status, JsonNode problem) {
        this(status, problem, null);
    }

    /** @param retryAfter what the answer's Retry-After asked to wait (429, 503); null when it sent none */
    public TaskfenceException(int status, JsonNode problem, Duration retryAfter) {
        super(status + " " + problem.path("title").asText("") + ": " + problem.path("detail").asText(""));
        this.status = status;
        this.problem = problem;
        this.retryAfter = retryAfter;
    }

    /** What the service asked to wait before trying again, if it said. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    public int status() {
        return status;
    }

    public JsonNode problem() {
        return problem;
    }
}

package io.taskfence.client;

import com.fasterxml.jackson.databind.JsonNode;

/** The service refused a request: {@link #status()} is the HTTP status, {@link #problem()} its problem+json body. */
public class TaskfenceException extends RuntimeException {

    private final int status;
    private final transient JsonNode problem;

    public TaskfenceException(int status, JsonNode problem) {
        super(status + " " + problem.path("title").asText("") + ": " + problem.path("detail").asText(""));
        this.status = status;
        this.problem = problem;
    }

    public int status() {
        return status;
    }

    public JsonNode problem() {
        return problem;
    }
}

package io.taskfence.client;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;

/** The service could not be reached, or answered that it cannot serve now (5xx): try again later. */
public final class ServiceUnavailableException extends TaskfenceException {

    public ServiceUnavailableException(int status, JsonNode problem, Duration retryAfter) {
        super(status, problem, retryAfter);
    }
}

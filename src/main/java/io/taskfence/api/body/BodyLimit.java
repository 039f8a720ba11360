package io.taskfence.api.body;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.runtime.configuration.MemorySize;
import io.taskfence.api.problem.Problem;
import io.taskfence.task.submit.NewTask;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;

/**
 * Refuses a request whose declared body is over {@code quarkus.http.limits.max-body-size} with a 413
 * problem before reading it. (Quarkus enforces the same limit, also on bodies without a length, but
 * answers with an empty body.)
 */
@Singleton
class BodyLimit {

    private static final int CONTENT_TOO_LARGE = 413;

    private final long maxBytes;
    private final ObjectMapper json;

    BodyLimit(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize max, ObjectMapper json) {
        this.maxBytes = max.asLongValue();
        this.json = json;
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            String length = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if (length != null && isOver(length)) {
                Problem problem = Problem.of(CONTENT_TOO_LARGE, "Content Too Large", "the body is " + length
                        + " bytes; at most " + maxBytes + " are read (a task's payload may be at most "
                        + NewTask.MAX_PAYLOAD_BYTES + " bytes)").at(context.request().path());
                context.response().setStatusCode(CONTENT_TOO_LARGE).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                        .putHeader(HttpHeaders.CONNECTION, "close").end(encode(problem));
                return;
            }
            context.next();
        });
    }

    private String encode(Problem problem) {
        try {
            return json.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem could not be written as JSON", e);
        }
    }

    private boolean isOver(String length) {
        try {
            return Long.parseLong(length.trim()) > maxBytes;
        } catch (NumberFormatException e) {
            return false; // Quarkus rejects a malformed length itself
        }
    }
}

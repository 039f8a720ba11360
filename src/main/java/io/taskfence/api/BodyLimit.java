package io.taskfence.api;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/**
 * Refuses a request whose declared body is over {@code quarkus.http.limits.max-body-size} with a 413
 * problem before reading it. (Quarkus enforces the same limit, also on bodies without a length, but
 * answers with an empty body.)
 */
@Singleton
class BodyLimit {

    private final long maxBytes;

    BodyLimit(@ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize max) {
        this.maxBytes = max.asLongValue();
    }

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            String length = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
            if (length != null && isOver(length)) {
                JsonObject problem = new JsonObject().put("status", 413).put("title", "Content Too Large")
                        .put("detail", "the body is " + length + " bytes; at most " + maxBytes + " are read "
                                + "(a task's payload may be at most " + TaskResource.MAX_PAYLOAD_BYTES + " bytes)");
                context.response().setStatusCode(413).putHeader(HttpHeaders.CONTENT_TYPE, "application/problem+json")
                        .putHeader(HttpHeaders.CONNECTION, "close").end(problem.encode());
                return;
            }
            context.next();
        });
    }

    private boolean isOver(String length) {
        try {
            return Long.parseLong(length.trim()) > maxBytes;
        } catch (NumberFormatException e) {
            return false; // Quarkus rejects a malformed length itself
        }
    }
}

package io.taskfence.api.body;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.taskfence.api.problem.Problem;

/**
 * A body is read only as what it says it is, and only as UTF-8 JSON (RFC 8259, section 8.1). JAX-RS takes a
 * body without a Content-Type for any type, and Jackson reads bytes as UTF-8 whatever the charset says;
 * either would read something its sender may not have meant, so both are refused with a 415, as is a
 * Content-Type that is not a media type (blank, say), which JAX-RS would fail on with a 500.
 */
final class JsonBodies {

    @ServerRequestFilter
    Optional<Response> undeclaredOrNotUtf8(ContainerRequestContext request) {
        String declared = request.getHeaderString(HttpHeaders.CONTENT_TYPE);
        boolean body = request.getLength() > 0 || request.getHeaderString("Transfer-Encoding") != null;
        if (declared == null) {
            return body ? refuse("a body needs Content-Type: application/json") : Optional.empty();
        }
        MediaType type;
        try {
            type = MediaType.valueOf(declared);
        } catch (IllegalArgumentException e) {
            return refuse("Content-Type '" + declared + "' is not a media type; send application/json");
        }
        String charset = type.getParameters().get(MediaType.CHARSET_PARAMETER);
        if (!body || charset == null || charset.equalsIgnoreCase(StandardCharsets.UTF_8.name())) {
            return Optional.empty();
        }
        return refuse("a body is read as UTF-8 JSON only, not as charset=" + charset
                + "; send it in UTF-8 with Content-Type: application/json");
    }

    private static Optional<Response> refuse(String detail) {
        return Optional.of(Problem.of(Status.UNSUPPORTED_MEDIA_TYPE, detail).toResponse());
    }
}

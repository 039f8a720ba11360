package io.taskfence.api.problem;

import java.util.List;
import java.util.stream.Collectors;

import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * An RFC 9457 problem, the body of every error this API answers. {@code field} names the JSON property
 * that could not be read; {@code violations} lists what failed validation. Registered for reflection by
 * name: Jackson writes it in a native image too, and no resource method returns it, only exception mappers.
 */
@Schema(name = "Problem", description = "RFC 9457 problem details", requiredProperties = { "status", "title" })
@JsonInclude(JsonInclude.Include.NON_NULL)
@RegisterForReflection
public record Problem(int status, String title, String detail, String instance, String field, List<Violation> violations) {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final int UNPROCESSABLE_CONTENT = 422;

    /** One failed constraint: the field, where in the request it was ({@code body}, {@code query}, ...) and why. */
    @Schema(requiredProperties = { "field", "in", "message" })
    @RegisterForReflection
    public record Violation(String field, String in, String message) {
    }

    public static Problem of(Status status, String detail) {
        return of(status.getStatusCode(), status.getReasonPhrase(), detail);
    }

    /** Failed constraints: a 400 whose detail lists them, the body as a whole where no field is named. */
    public static Problem invalid(List<Violation> violations) {
        String detail = violations.stream()
                .map(violation -> (violation.field().isEmpty() ? "the " + violation.in() : violation.field()) + ": "
                        + violation.message())
                .collect(Collectors.joining("; "));
        return of(Status.BAD_REQUEST, detail).withViolations(violations);
    }

    /** The request was understood but cannot be carried out as it is (RFC 9110's 422). */
    public static Problem unprocessable(String detail) {
        return of(UNPROCESSABLE_CONTENT, "Unprocessable Content", detail);
    }

    public static Problem of(int status, String title, String detail) {
        return new Problem(status, title, detail, null, null, null);
    }

    public Problem withField(String name) {
        return new Problem(status, title, detail, instance, name, violations);
    }

    Problem withViolations(List<Violation> failed) {
        return new Problem(status, title, detail, instance, field, List.copyOf(failed));
    }

    public Problem at(String path) {
        return new Problem(status, title, detail, path, field, violations);
    }

    public Response toResponse() {
        return Response.status(status).type(MEDIA_TYPE).entity(this).build();
    }
}

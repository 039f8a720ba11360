package io.taskfence.api.problem;

import java.io.IOException;
import java.lang.reflect.Parameter;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;

/**
 * Problem details for everything that can go wrong in a request outside the domain: the resources' own
 * {@link ProblemException}s, bodies that are not the JSON expected, failed validation, authentication,
 * requests JAX-RS refuses (unknown path, method, media type) and, last, anything unexpected (500).
 * Every problem gets the request's path as its {@code instance}.
 */
public final class RequestProblems {

    private static final Logger LOG = Logger.getLogger(RequestProblems.class);

    /** Ahead of the mappers Quarkus itself registers for the same exceptions. */
    private static final int FIRST = 1;

    @ServerExceptionMapper(priority = FIRST)
    Response raised(ProblemException e) {
        return e.problem().toResponse();
    }

    @ServerExceptionMapper(priority = FIRST)
    Response refusedByJaxRs(WebApplicationException e, ContainerRequestContext request) {
        if (e.getCause() instanceof JsonMappingException mismatched) {
            return unfitting(mismatched);
        }
        if (e.getCause() instanceof JsonProcessingException json) {
            return unreadable(json);
        }
        Response refused = e.getResponse();
        String detail = e instanceof NotFoundException && refused.getEntity() == null
                ? "nothing is served at " + request.getUriInfo().getPath()
                : e.getMessage();
        Response.ResponseBuilder answer = Response.fromResponse(
                Problem.of(refused.getStatus(), refused.getStatusInfo().getReasonPhrase(), detail).toResponse());
        // Headers the refusal carries go with the problem (a WebApplicationException may be thrown with some).
        refused.getStringHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase(HttpHeaders.CONTENT_TYPE) && !name.equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH)) {
                values.forEach(value -> answer.header(name, value));
            }
        });
        return answer.build();
    }

    @ServerExceptionMapper(priority = FIRST)
    Response unreadable(JsonProcessingException e) {
        String where = e.getLocation() == null ? ""
                : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
        return Problem.of(Status.BAD_REQUEST, "the body is not valid JSON: " + JsonMismatches.plain(e) + where)
                .toResponse();
    }

    /**
     * JSON that does not fit: a field of the wrong type or out of its type's range, one the API does not
     * know, or a value Jackson refuses inside a field (a duplicate key, too deep).
     */
    @ServerExceptionMapper(priority = FIRST)
    Response mismatched(JsonMappingException e) {
        return unfitting(e);
    }

    /** Ahead of quarkus-rest-jackson's own mapper for this type, which answers with a body of its own. */
    @ServerExceptionMapper(priority = FIRST)
    Response mismatchedInput(MismatchedInputException e) {
        return unfitting(e);
    }

    private Response unfitting(JsonMappingException e) {
        String field = jsonPath(e.getPath());
        if (e instanceof UnrecognizedPropertyException unknown) {
            String known = unknown.getKnownPropertyIds() == null ? ""
                    : "; the fields are " + unknown.getKnownPropertyIds().stream().map(String::valueOf).sorted()
                            .collect(Collectors.joining(", "));
            return Problem.of(Status.BAD_REQUEST, "unknown field '" + field + "'" + known).withField(field).toResponse();
        }
        if (field.isEmpty()) {
            if (!(e instanceof MismatchedInputException)) {
                return unreadable(e);
            }
            // Jackson's own words name the request's Java record; its trailing-token check is the one without a kind.
            return Problem.of(Status.BAD_REQUEST, e.getOriginalMessage().startsWith("Trailing token")
                    ? "the body must be one JSON object, with nothing after it"
                    : "the body must be a JSON object, not " + JsonMismatches.sent(e)).toResponse();
        }
        return Problem.of(Status.BAD_REQUEST, "'" + field + "' cannot be read: " + JsonMismatches.explain(e))
                .withField(field).toResponse();
    }

    @ServerExceptionMapper(priority = FIRST)
    Response invalid(ConstraintViolationException e, ResourceInfo resource) {
        List<Problem.Violation> violations = e.getConstraintViolations().stream()
                .map(violation -> violation(violation, resource))
                .sorted(Comparator.comparing(Problem.Violation::in).thenComparing(Problem.Violation::field))
                .toList();
        return Problem.invalid(violations).toResponse();
    }

    @ServerExceptionMapper(priority = FIRST)
    Response unauthenticated(UnauthorizedException e) {
        return unauthorized("send an API key as 'Authorization: Bearer <key>'");
    }

    @ServerExceptionMapper(priority = FIRST)
    Response unknownKey(AuthenticationFailedException e) {
        return unauthorized("the API key is not one this service knows");
    }

    @ServerExceptionMapper(priority = FIRST)
    Response forbidden(ForbiddenException e) {
        return Problem.of(Status.FORBIDDEN, "this API key may act on its own tasks only; stats and schedules need an "
                + "admin key").toResponse();
    }

    /**
     * The body could not be read, which in these resources means the client hung up mid-request: not a
     * fault of ours (no error logged), nothing was changed, and nobody is left to read the answer.
     */
    @ServerExceptionMapper(priority = FIRST)
    Response unreadableStream(IOException e, ContainerRequestContext request) {
        LOG.debugf("%s %s: the request could not be read: %s", request.getMethod(), request.getUriInfo().getPath(), e);
        return Problem.of(Status.BAD_REQUEST, "the request could not be read: " + e.getMessage()).toResponse();
    }

    /** A fault of ours, not the client's: logged whole, answered without internals. */
    @ServerExceptionMapper
    Response unexpected(Exception e, ContainerRequestContext request) {
        LOG.errorf(e, "%s %s failed", request.getMethod(), request.getUriInfo().getPath());
        return Problem.of(Status.INTERNAL_SERVER_ERROR, "the request failed on the server; its log says why")
                .toResponse();
    }

    @ServerResponseFilter
    void locate(ContainerRequestContext request, ContainerResponseContext response) {
        if (response.getEntity() instanceof Problem problem && problem.instance() == null) {
            response.setEntity(problem.at(request.getUriInfo().getPath()));
        }
    }

    private static Response unauthorized(String detail) {
        return Response.fromResponse(Problem.of(Status.UNAUTHORIZED, detail).toResponse())
                .header("WWW-Authenticate", "Bearer realm=\"taskfence\"").build();
    }

    /**
     * Names the field as the client wrote it: a header, query or path parameter by its name there, a
     * property of the body by its path in the JSON ({@code ""} for the body itself).
     */
    private static Problem.Violation violation(ConstraintViolation<?> violation, ResourceInfo resource) {
        String message = violation.getMessage();
        Iterator<Path.Node> nodes = violation.getPropertyPath().iterator();
        if (!(nodes.hasNext() && nodes.next().getKind() == ElementKind.METHOD && nodes.hasNext())) {
            return new Problem.Violation(violation.getPropertyPath().toString(), "?", message);
        }
        Path.Node node = nodes.next();
        if (node.getKind() == ElementKind.PARAMETER && resource.getResourceMethod() != null) {
            Parameter parameter = resource.getResourceMethod().getParameters()[node.as(Path.ParameterNode.class)
                    .getParameterIndex()];
            if (parameter.isAnnotationPresent(HeaderParam.class)) {
                return new Problem.Violation(parameter.getAnnotation(HeaderParam.class).value(), "header", message);
            }
            if (parameter.isAnnotationPresent(QueryParam.class)) {
                return new Problem.Violation(parameter.getAnnotation(QueryParam.class).value(), "query", message);
            }
            if (parameter.isAnnotationPresent(PathParam.class)) {
                return new Problem.Violation(parameter.getAnnotation(PathParam.class).value(), "path", message);
            }
        }
        StringBuilder field = new StringBuilder();
        nodes.forEachRemaining(property -> {
            if (property.getName() != null) {
                field.append(field.isEmpty() ? "" : ".").append(property.getName());
            }
        });
        return new Problem.Violation(field.toString(), "body", message);
    }

    private static String jsonPath(List<JsonMappingException.Reference> path) {
        StringBuilder field = new StringBuilder();
        for (JsonMappingException.Reference step : path) {
            if (step.getFieldName() != null) {
                field.append(field.isEmpty() ? "" : ".").append(step.getFieldName());
            } else if (step.getIndex() >= 0) {
                field.append('[').append(step.getIndex()).append(']');
            }
        }
        return field.toString();
    }
}

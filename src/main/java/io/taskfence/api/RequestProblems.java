package io.taskfence.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonProcessingException;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;

/**
 * Problem details, with a detail a client can act on, for failures raised before a resource method
 * runs: unreadable bodies and authentication. They take precedence over quarkus-resteasy-problem's
 * mappers, whose security mappers fail on this Quarkus version.
 */
final class RequestProblems {

    /** Ahead of every mapper a library registers for the same exceptions. */
    private static final int FIRST = 1;

    @ServerExceptionMapper(priority = FIRST)
    Response unreadable(WebApplicationException e) {
        if (e.getCause() instanceof JsonProcessingException json) {
            String what = json.getOriginalMessage().replaceAll("\\s*\\(start marker at \\[Source: .*?\\]\\)", "");
            return Problems.of(Status.BAD_REQUEST, "the body is not valid JSON: " + what
                    + (json.getLocation() == null ? "" : " (line " + json.getLocation().getLineNr() + ", column "
                            + json.getLocation().getColumnNr() + ")")).toResponse();
        }
        Status status = Status.fromStatusCode(e.getResponse().getStatus());
        return Problems.of(status == null ? Status.BAD_REQUEST : status, e.getMessage()).toResponse();
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
        return Problems.of(Status.FORBIDDEN, "this API key may submit and read tasks only; cancel, retry and stats "
                + "need an admin key").toResponse();
    }

    private static Response unauthorized(String detail) {
        return Response.fromResponse(Problems.of(Status.UNAUTHORIZED, detail).toResponse())
                .header("WWW-Authenticate", "Bearer realm=\"taskfence\"").build();
    }
}

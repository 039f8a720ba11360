package io.taskfence.api;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.taskfence.lock.LockUnavailableException;
import io.taskfence.task.IdempotencyKeyReusedException;
import io.taskfence.task.InvalidCursorException;
import io.taskfence.task.TaskStoreException;

/** Problem details for the exceptions of the packages the API calls. */
final class DomainProblems {

    private static final Logger LOG = Logger.getLogger(DomainProblems.class);

    @ServerExceptionMapper
    Response invalidCursor(InvalidCursorException e) {
        return Problems.of(Status.BAD_REQUEST, e.getMessage()).toResponse();
    }

    @ServerExceptionMapper
    Response idempotencyKeyReused(IdempotencyKeyReusedException e) {
        return Problems.unprocessable(e.getMessage()).toResponse();
    }

    /** The database failed: nothing was changed, and the client may try again. */
    @ServerExceptionMapper
    Response storeUnavailable(TaskStoreException e) {
        LOG.warn("PostgreSQL failed a request", e);
        Response problem = Problems.of(Status.SERVICE_UNAVAILABLE,
                "the task database did not answer; nothing was changed, try again shortly").toResponse();
        return Response.fromResponse(problem).header("Retry-After", "5").build();
    }

    @ServerExceptionMapper
    Response redisUnavailable(LockUnavailableException e) {
        LOG.warn("Redis failed a request", e);
        Response problem = Problems.of(Status.SERVICE_UNAVAILABLE, "Redis did not answer; try again shortly")
                .toResponse();
        return Response.fromResponse(problem).header("Retry-After", "5").build();
    }
}

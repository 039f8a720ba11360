package io.taskfence.api.problem;

import java.util.Optional;

import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.taskfence.api.auth.RequestRateExceeded;
import io.taskfence.lock.LockUnavailableException;
import io.taskfence.queue.QueueUnavailableException;
import io.taskfence.remote.ClaimSupersededException;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.query.InvalidCursorException;
import io.taskfence.task.submit.outcome.BatchRefusedException;
import io.taskfence.task.submit.outcome.IdempotencyKeyReusedException;
import io.taskfence.task.submit.outcome.TypeTakenBackException;
import io.taskfence.task.submit.outcome.UnmetDependencyException;
import io.taskfence.task.submit.outcome.OverQuotaException;

/** Problem details for the exceptions of the packages the API calls. */
final class DomainProblems {

    private static final Logger LOG = Logger.getLogger(DomainProblems.class);

    /** Seconds a client should wait before trying again after a 503. */
    private static final String RETRY_AFTER_SECONDS = "5";
    /** A guess: the service cannot know when a key's tasks will finish, only that none can be taken now. */
    private static final String QUOTA_RETRY_AFTER_SECONDS = "10";
    private static final int TOO_MANY_REQUESTS = 429;

    @ServerExceptionMapper
    Response invalidCursor(InvalidCursorException e) {
        return Problems.invalid("query", "after", e.getMessage()).problem().toResponse();
    }

    @ServerExceptionMapper
    Response idempotencyKeyReused(IdempotencyKeyReusedException e) {
        return Problem.unprocessable(e.reused().detail("Idempotency-Key")).withField("Idempotency-Key").toResponse();
    }

    @ServerExceptionMapper
    Response unmetDependency(UnmetDependencyException e) {
        return Problem.unprocessable(e.getMessage()).withField("dependsOn").toResponse();
    }

    @ServerExceptionMapper
    Response typeTakenBack(TypeTakenBackException e) {
        return Problem.unprocessable(e.getMessage()).withField("type").toResponse();
    }

    /** A batch request naming a batch it cannot join: nothing was stored. */
    @ServerExceptionMapper
    Response batchRefused(BatchRefusedException e) {
        return switch (e.reason()) {
            case UNKNOWN -> Problem.unprocessable(e.getMessage()).withField("batchId").toResponse();
            case CLOSED -> Problem.of(Status.CONFLICT.getStatusCode(), "Batch Closed", e.getMessage()).toResponse();
            case THEN_KEY_REUSED -> Problem.unprocessable(e.getMessage()).withField("then.idempotencyKey").toResponse();
            case THEN_TYPE_TAKEN_BACK -> Problem.unprocessable(e.getMessage()).withField("then.type").toResponse();
        };
    }

    /** A remote worker's claim no longer holds its task: nothing was written, and the worker should stop. */
    @ServerExceptionMapper
    Response claimSuperseded(ClaimSupersededException e) {
        return Problem.of(Status.CONFLICT.getStatusCode(), "Claim Superseded", e.getMessage()).toResponse();
    }

    /** Nothing was stored; the client may try again once some of its tasks have finished. */
    @ServerExceptionMapper
    Response overQuota(OverQuotaException e) {
        return Response.fromResponse(Problem.of(TOO_MANY_REQUESTS, "Too Many Requests", e.refused().detail()).toResponse())
                .header("Retry-After", QUOTA_RETRY_AFTER_SECONDS).build();
    }

    /** The key's request rate refused the request before anything was done ({@link RequestRateExceeded}). */
    @ServerExceptionMapper
    Response overRate(RequestRateExceeded e) {
        Response.ResponseBuilder answer = Response.fromResponse(
                Problem.of(TOO_MANY_REQUESTS, "Too Many Requests", e.getMessage()).toResponse());
        if (e.retryAfterSeconds() > 0) {
            answer.header("Retry-After", Integer.toString(e.retryAfterSeconds()));
        }
        return answer.build();
    }

    /**
     * The database failed: nothing was changed, and the client may try again. Unless it refused a value of
     * the request: the checks at the edge should have refused it first (logged, as a gap in them), and
     * trying again would not help.
     */
    @ServerExceptionMapper
    Response storeUnavailable(TaskStoreException e) {
        Optional<String> refused = e.refusedValue();
        if (refused.isPresent()) {
            // PostgreSQL's own words stay in the log: they name its types and internals, not the API's fields.
            LOG.warnf(e, "PostgreSQL refused a value of a request that passed the API's checks: %s", refused.get());
            return Problem.of(Status.BAD_REQUEST, "the database refused a value of the request (a text, number or "
                    + "time it cannot store); nothing was changed").toResponse();
        }
        if (e.readTimedOut()) {
            // 422, not 503: the same request again would scan as much again (DESIGN.md, "REST API", "Bulkheads").
            LOG.debug("An API read ran into its statement time-out", e);
            return Problem.of(422, "Read Too Broad", "the read took longer than an API read may "
                    + "(taskfence.api.read-timeout) and was stopped; narrow it and ask again: a shorter time range "
                    + "(createdAfter and createdBefore), a type or a status").toResponse();
        }
        LOG.warn("PostgreSQL failed a request", e);
        if (e.outcomeUnknown()) {
            return unavailable("the connection to the task database broke while the change was being committed, so "
                    + "it may or may not have been made: look it up before you try again, or send the request again "
                    + "with the same Idempotency-Key, which answers the task already stored instead of making another");
        }
        return unavailable("the task database did not answer; nothing was changed, try again shortly");
    }

    @ServerExceptionMapper
    Response redisUnavailable(LockUnavailableException e) {
        LOG.warn("Redis failed a request", e);
        return unavailable("Redis did not answer; try again shortly");
    }

    @ServerExceptionMapper
    Response queueUnavailable(QueueUnavailableException e) {
        LOG.warn("Redis failed a request", e);
        return unavailable("Redis did not answer; try again shortly");
    }

    private static Response unavailable(String detail) {
        return Response.fromResponse(Problem.of(Status.SERVICE_UNAVAILABLE, detail).toResponse())
                .header("Retry-After", RETRY_AFTER_SECONDS).build();
    }
}

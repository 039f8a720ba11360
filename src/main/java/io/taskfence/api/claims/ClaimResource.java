package io.taskfence.api.claims;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.taskfence.TaskfenceConfig;
import io.taskfence.api.Delay;
import io.taskfence.api.LongPoll;
import io.taskfence.api.auth.HeldPerKey;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problems;
import io.taskfence.remote.ClaimId;
import io.taskfence.remote.ClaimProgress;
import io.taskfence.remote.RemoteClaims;
import io.taskfence.remote.WorkerSightings;
import io.taskfence.task.StorableJson;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.TaskStatus;
import io.taskfence.tracing.TaskTraces;
import io.taskfence.types.RemoteTypes;

/**
 * The worker API (DESIGN.md, "Remote workers"): a worker key claims tasks of the remote types it names, extends its
 * claims' leases, reports their progress, and ends them with a result or a failure. A write whose claim no longer
 * holds its task (cancelled, finished, recovered after its lease ran out, or the attempt timed out) is answered 409
 * and changes nothing: the worker's signal to stop.
 */
@Path("/api/v1/claims")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Claims", description = "the worker API: remote workers claim tasks of remote types, report their end")
public class ClaimResource {

    private static final String DEFAULT_WORKER = "worker";
    private static final String CLAIM_ID = "the claim's id, as the claim answered it";

    private final RemoteClaims claims;
    private final RemoteTypes remote;
    private final SecurityIdentity identity;
    private final Duration backoffBase;
    private final Duration backoffCap;
    private final Duration lease;
    private final TaskTraces traces;
    private final HeldPerKey held;
    private final ClaimProgress reports;
    private final WorkerSightings sightings;

    ClaimResource(RemoteClaims claims, RemoteTypes remote, SecurityIdentity identity, TaskfenceConfig config,
            TaskTraces traces, HeldPerKey held, ClaimProgress reports, WorkerSightings sightings) {
        this.reports = reports;
        this.sightings = sightings;
        this.held = held;
        this.traces = traces;
        this.claims = claims;
        this.remote = remote;
        this.identity = identity;
        this.backoffBase = config.retry().backoffBase();
        this.backoffCap = config.retry().backoffCap();
        this.lease = config.worker().lease();
    }

    /**
     * Up to {@code max} tasks of the named types, each claimed (PROCESSING, its lease started) for the caller; waits
     * up to {@code wait} for a first one, without holding a thread. An empty list: none came within the wait.
     */
    @POST
    @Blocking // the key's request rate is taken from Redis before the method runs
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(operationId = "claimTasks", summary = "Claim tasks of remote types, waiting for them up to a limit")
    public Uni<ClaimAnswers.Claims> claim(@NotNull(message = "a JSON object with at least types") @Valid ClaimRequest body) {
        KeyOwner caller = KeyOwner.of(identity);
        Set<String> types = new LinkedHashSet<>(body.types());
        for (String type : types) {
            if (!remote.contains(type)) {
                throw Problems.unprocessable("types", "'" + type + "' is not a remote task type; the remote types are "
                        + remote.names());
            }
            if (!caller.mayClaim(type)) {
                throw Problems.of(Status.FORBIDDEN, "API key '" + caller.name() + "' may not claim '" + type
                        + "' tasks; it may claim " + caller.workerTypes());
            }
        }
        Duration wait = body.waitUpTo() == null ? Duration.ZERO : LongPoll.parse(body.waitUpTo()).orElseThrow(() ->
                Problems.about("wait", Status.BAD_REQUEST, "wait must be at most " + LongPoll.LONGEST.toSeconds()
                        + "s, not " + body.waitUpTo()));
        String claimer = RemoteClaims.claimer(caller.name(), Optional.ofNullable(body.worker()).orElse(DEFAULT_WORKER));
        // A claim that waits holds one of its key's long-poll places until it answers; one that does not, none.
        HeldPerKey.Hold place = wait.isZero() ? () -> { } : held.claimWait(caller.name());
        Uni<List<Claim>> claimed;
        try {
            claimed = claims.claim(claimer, List.copyOf(types), Optional.ofNullable(body.max()).orElse(1), wait);
        } catch (RuntimeException e) {
            place.close();
            throw e;
        }
        return claimed.invoke(got -> sightings.claimed(claimer, List.copyOf(types), got.size()))
                .map(got -> new ClaimAnswers.Claims(got.stream().map(claim -> ClaimedTask.of(claim, lease,
                        traces.claimed(claim.taskId(), claim.type(), claim.attempt(), claim.traceParent(), claimer)))
                        .toList()))
                .onTermination().invoke(place::close);
    }

    /**
     * Extends the claim's lease by {@code taskfence.worker.lease}, never past the attempt's time-out; 409 once the
     * claim no longer holds its task (cancelled, finished, recovered after its lease ran out, or the attempt timed out).
     */
    @POST
    @Path("/{claimId}/heartbeat")
    @RolesAllowed(Roles.WORKER)
    @Operation(operationId = "heartbeatClaim", summary = "Extend a claim's lease")
    public ClaimAnswers.Lease heartbeat(
            @Parameter(description = CLAIM_ID, schema = @Schema(type = SchemaType.STRING, pattern = ClaimId.PATTERN))
            @PathParam("claimId") String claimId) {
        ClaimId claim = held(claimId);
        ClaimAnswers.Lease lease = new ClaimAnswers.Lease(claims.heartbeat(claim));
        sightings.called(claim, true);
        return lease;
    }

    /**
     * Reports how far the claim's attempt has come: the body's {@code progress}, a JSON object of at most 4 KiB, becomes
     * the task's {@code progress} within a second (the latest of several; DESIGN.md, "Task lifecycle", "Progress"); 409
     * once the claim no longer holds its task.
     */
    @POST
    @Path("/{claimId}/progress")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(operationId = "reportClaimProgress", summary = "Report a claim's progress, shown as the task's progress")
    @APIResponse(responseCode = "204", description = "kept: the task shows it within a second, unless a later report "
            + "replaced it first")
    public Response progress(
            @Parameter(description = CLAIM_ID, schema = @Schema(type = SchemaType.STRING, pattern = ClaimId.PATTERN))
            @PathParam("claimId") String claimId,
            @NotNull(message = "a JSON object with progress") @Valid ClaimAnswers.Progress body) {
        ClaimId claim = held(claimId);
        keep(claim, body.progress());
        sightings.called(claim, false);
        return Response.noContent().build();
    }

    /** Keeps the claim's progress report, refused as a payload is (422) or when over 4 KiB (413). */
    private void keep(ClaimId claim, ObjectNode progress) {
        StorableJson.firstProblem(progress, "progress").ifPresent(problem -> {
            throw Problems.unprocessable("progress", "the progress cannot be stored: it contains " + problem);
        });
        try {
            reports.report(claim, progress);
        } catch (IllegalArgumentException tooLarge) {
            throw Problems.about("progress", Status.REQUEST_ENTITY_TOO_LARGE, tooLarge.getMessage());
        }
    }

    /**
     * PROCESSING → SUCCEEDED with the result, after the attempt's last progress report (the body's, else one held back
     * here); 409, and nothing stored, once the claim no longer holds its task.
     */
    @POST
    @Path("/{claimId}/complete")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(operationId = "completeClaim", summary = "End a claim with the task's result")
    public ClaimAnswers.Ended complete(
            @Parameter(description = CLAIM_ID, schema = @Schema(type = SchemaType.STRING, pattern = ClaimId.PATTERN))
            @PathParam("claimId") String claimId, @Valid ClaimAnswers.Result body) {
        ClaimId claim = held(claimId);
        JsonNode result = body == null ? null : body.result();
        StorableJson.resultProblem(result).ifPresent(problem -> {
            throw Problems.unprocessable("result", "the result cannot be stored: " + problem);
        });
        if (body != null && body.progress() != null) {
            keep(claim, body.progress());
        }
        reports.flush(claim); // the last report before the end: this body's, or one held back here
        claims.complete(claim, result);
        sightings.called(claim, false);
        traces.reported("success");
        return new ClaimAnswers.Ended(TaskStatus.SUCCEEDED);
    }

    /**
     * PROCESSING → FAILED (retried after the backoff, or after {@code retryAfter}) or DEAD (not retryable, the last
     * attempt, or past the deadline), after the attempt's last progress report (as for complete); 409, and nothing
     * written, once the claim no longer holds its task.
     */
    @POST
    @Path("/{claimId}/fail")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.WORKER)
    @Operation(operationId = "failClaim", summary = "End a claim with a failure")
    public ClaimAnswers.Ended fail(
            @Parameter(description = CLAIM_ID, schema = @Schema(type = SchemaType.STRING, pattern = ClaimId.PATTERN))
            @PathParam("claimId") String claimId,
            @NotNull(message = "a JSON object with at least error") @Valid ClaimAnswers.Failure body) {
        ClaimId claim = held(claimId);
        // The body's pattern (Delay's) let it through.
        Duration retryAfter = body.retryAfter() == null ? null : Delay.parse(body.retryAfter()).orElseThrow();
        boolean retryable = !Boolean.FALSE.equals(body.retryable());
        if (body.progress() != null) {
            keep(claim, body.progress());
        }
        reports.flush(claim);
        TaskStatus now = claims.fail(claim, body.error(), retryable, retryAfter, backoffBase, backoffCap);
        sightings.called(claim, false);
        traces.reported(retryable ? "failure" : "permanent_failure");
        return new ClaimAnswers.Ended(now);
    }

    /**
     * PROCESSING → PENDING, due now, the attempt not counted: a worker that stops before it could finish hands its
     * task back for another; 409 once the claim no longer holds its task.
     */
    @POST
    @Path("/{claimId}/release")
    @RolesAllowed(Roles.WORKER)
    @Operation(operationId = "releaseClaim", summary = "Hand a claimed task back, unfinished, without using an attempt")
    public ClaimAnswers.Ended release(
            @Parameter(description = CLAIM_ID, schema = @Schema(type = SchemaType.STRING, pattern = ClaimId.PATTERN))
            @PathParam("claimId") String claimId) {
        ClaimId claim = held(claimId);
        reports.flush(claim);
        TaskStatus now = claims.release(claim);
        sightings.called(claim, false);
        traces.reported("later");
        return new ClaimAnswers.Ended(now);
    }

    /** The claim the id names, made through the caller's key; 404 for anything else, as for an unknown claim. */
    private ClaimId held(String text) {
        return ClaimId.parse(text).filter(made -> RemoteClaims.madeBy(made, KeyOwner.of(identity).name()))
                .orElseThrow(() -> Problems.of(Status.NOT_FOUND, "no claim '" + text + "' of this key"));
    }
}

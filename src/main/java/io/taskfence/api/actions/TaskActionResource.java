package io.taskfence.api.actions;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problem;
import io.taskfence.api.tasks.FilterParams;
import io.taskfence.task.query.TaskFilter;
import io.taskfence.task.action.ActionView;
import io.taskfence.task.action.BulkAction;
import io.taskfence.task.action.TaskActions;

/**
 * Bulk actions over REST (DESIGN.md, "Bulk actions"): cancel or retry every task a filter matches, answered at once
 * with the action, which the actions job then works through; its progress is read at {@link ActionProgressResource}.
 * A submit key acts on its own tasks.
 */
@Path("/api/v1/tasks/actions")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Bulk actions", description = "cancel or retry every task a filter matches, and follow the action")
public class TaskActionResource {

    private static final String FILTERS = "a JSON object with the filters; {} for all";
    private static final int TOO_MANY_REQUESTS = 429;
    /** A guess: how long a key's actions take depends on their tasks; a batch of each key's goes every interval. */
    private static final String RETRY_AFTER_SECONDS = "10";

    private final TaskActions actions;
    private final SecurityIdentity identity;

    TaskActionResource(TaskActions actions, SecurityIdentity identity) {
        this.actions = actions;
        this.identity = identity;
    }

    /**
     * 202 and the action started, or 200 and the identical one (same action, key scope and filter) that is running
     * already: a request sent again while the first runs moves no task twice. Its progress is at the answer's
     * {@code Location}, {@code GET /api/v1/actions/{id}}. 429 with Retry-After when the key has
     * {@code taskfence.actions.max-running-per-key} actions running.
     */
    @POST
    @Path("/cancel")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "cancelMatching", summary = "Cancel every unfinished task a filter matches, in batches")
    @APIResponse(responseCode = "202", description = "the action, started",
            headers = @Header(name = "Location", description = "the action's progress, GET /api/v1/actions/{id}",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = ActionView.class)))
    @APIResponse(responseCode = "200", description = "the identical action running already; nothing started",
            headers = @Header(name = "Location", description = "the action's progress, GET /api/v1/actions/{id}",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = ActionView.class)))
    public Response cancel(@NotNull(message = FILTERS) ActionRequest body, UriInfo uri) {
        return start(BulkAction.CANCEL, body, uri);
    }

    /** As {@link #cancel}, for a retry of the DEAD and CANCELLED tasks a filter matches. */
    @POST
    @Path("/retry")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "retryMatching", summary = "Retry every DEAD or CANCELLED task a filter matches, in batches")
    @APIResponse(responseCode = "202", description = "the action, started",
            headers = @Header(name = "Location", description = "the action's progress, GET /api/v1/actions/{id}",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = ActionView.class)))
    @APIResponse(responseCode = "200", description = "the identical action running already; nothing started",
            headers = @Header(name = "Location", description = "the action's progress, GET /api/v1/actions/{id}",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = ActionView.class)))
    public Response retry(@NotNull(message = FILTERS) ActionRequest body, UriInfo uri) {
        return start(BulkAction.RETRY, body, uri);
    }

    private Response start(BulkAction bulk, ActionRequest body, UriInfo uri) {
        TaskFilter filter = FilterParams.forAction(bulk, FilterParams.filter(body.status(), body.type(), body.owner(),
                body.batch(), body.createdAfter(), body.createdBefore(), body.error(), body.text(), "body"), "body");
        KeyOwner caller = KeyOwner.of(identity);
        return switch (actions.request(bulk, caller.scope(), filter, caller.name())) {
            case TaskActions.Requested.Started started -> answer(Status.ACCEPTED, started.action(), uri);
            case TaskActions.Requested.AlreadyRunning running -> answer(Status.OK, running.action(), uri);
            case TaskActions.Requested.Refused refused -> Response.fromResponse(Problem.of(TOO_MANY_REQUESTS,
                    "Too Many Requests", "this key has " + refused.cap() + " bulk actions running, the most a key may "
                            + "(taskfence.actions.max-running-per-key); nothing was started. Ask again once one of "
                            + "them is DONE (GET /api/v1/actions/{id})").toResponse())
                    .header("Retry-After", RETRY_AFTER_SECONDS).build();
        };
    }

    private static Response answer(Status status, ActionView view, UriInfo uri) {
        return Response.status(status)
                .location(uri.getBaseUriBuilder().path(ActionProgressResource.class).path(view.id().toString()).build())
                .entity(view).build();
    }
}

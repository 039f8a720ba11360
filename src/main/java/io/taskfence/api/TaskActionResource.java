package io.taskfence.api;

import java.util.Arrays;
import java.util.UUID;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.TaskFilter;
import io.taskfence.task.action.ActionView;
import io.taskfence.task.action.BulkAction;
import io.taskfence.task.action.TaskActions;

/**
 * Bulk actions over REST (DESIGN.md, "Bulk actions"): cancel or retry every task a filter matches, answered at once
 * with the action, which the actions job then works through; its progress is read here. A submit key acts on its own
 * tasks and sees its own actions; another's answers 404, as one that does not exist.
 */
@Path("/api/v1/tasks/actions")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
public class TaskActionResource {

    private final TaskActions actions;
    private final SecurityIdentity identity;

    TaskActionResource(TaskActions actions, SecurityIdentity identity) {
        this.actions = actions;
        this.identity = identity;
    }

    /**
     * 202 and the action started, or 200 and the identical one (same action, key scope and filter) that is running
     * already: a request sent again while the first runs moves no task twice.
     */
    @POST
    @Path("/{action}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "startBulkAction", summary = "Cancel or retry every task a filter matches, in batches")
    public Response start(@PathParam("action") String action,
            @NotNull(message = "a JSON object with the filters; {} for all") ActionRequest body, UriInfo uri) {
        BulkAction bulk = bulkAction(action, "path");
        TaskFilter filter = forAction(bulk, FilterParams.filter(body.status(), body.type(), body.owner(), body.batch(),
                body.createdAfter(), body.createdBefore(), body.error(), body.text(), "body"), "body");
        KeyOwner caller = KeyOwner.of(identity);
        TaskActions.Requested requested = actions.request(bulk, caller.scope(), filter, caller.name());
        ActionView view = requested.action();
        return Response.status(requested.started() ? Status.ACCEPTED : Status.OK)
                .location(uri.getBaseUriBuilder().path(TaskActionResource.class).path(view.id().toString()).build())
                .entity(view).build();
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "getBulkAction", summary = "A bulk action's progress")
    public ActionView get(@PathParam("id") String id) {
        UUID actionId = CanonicalIds.parse(id).orElseThrow(() -> notFound(id));
        return actions.find(actionId, KeyOwner.of(identity).scope()).orElseThrow(() -> notFound(id));
    }

    /** The bulk action named {@code action}: 404 in a path, 400 in a query. */
    static BulkAction bulkAction(String action, String in) {
        return Arrays.stream(BulkAction.values()).filter(known -> known.key().equals(action)).findFirst()
                .orElseThrow(() -> in.equals("path")
                        ? Problems.of(Status.NOT_FOUND, "no bulk action '" + action + "': cancel or retry")
                        : Problems.invalid(in, "action", "must be cancel or retry, not '" + action + "'"));
    }

    /** {@code filter} narrowed to the statuses {@code action} moves from; 400 if it names another. */
    static TaskFilter forAction(BulkAction action, TaskFilter filter, String in) {
        if (filter.statuses() != null && !action.from().containsAll(filter.statuses())) {
            throw Problems.invalid(in, "status", "a " + action.key() + " moves tasks that are "
                    + action.from().stream().map(Enum::name).sorted().toList() + ", not "
                    + filter.statuses().iterator().next());
        }
        return filter.within(action.from());
    }

    private static ProblemException notFound(String id) {
        return Problems.of(Status.NOT_FOUND, "no bulk action with id '" + id + "'");
    }
}

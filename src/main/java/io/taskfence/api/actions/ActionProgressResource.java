package io.taskfence.api.actions;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response.Status;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.api.CanonicalIds;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.action.ActionView;
import io.taskfence.task.action.TaskActions;

/**
 * A bulk action's progress (DESIGN.md, "Bulk actions"), where {@link TaskActionResource} points. Not under
 * {@code /api/v1/tasks}: {@code /tasks/actions/{id}} and {@code /tasks/{id}/events} would both match one address. A
 * submit key sees its own actions; another's answers 404, as one that does not exist.
 */
@Path("/api/v1/actions")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Bulk actions", description = "cancel or retry every task a filter matches, and follow the action")
public class ActionProgressResource {

    private final TaskActions actions;
    private final SecurityIdentity identity;

    ActionProgressResource(TaskActions actions, SecurityIdentity identity) {
        this.actions = actions;
        this.identity = identity;
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "getBulkAction", summary = "A bulk action's progress")
    public ActionView get(
            @Parameter(description = "the action's id", schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id) {
        return actions.find(CanonicalIds.parse(id).orElseThrow(() -> notFound(id)), KeyOwner.of(identity).scope())
                .orElseThrow(() -> notFound(id));
    }

    private static ProblemException notFound(String id) {
        return Problems.of(Status.NOT_FOUND, "no bulk action with id '" + id + "'");
    }
}

package io.taskfence.api.types;

import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.event.Event;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.types.RemoteTypes;
import io.taskfence.types.TaskTypes;
import io.taskfence.types.TypeState;

/**
 * The task types (DESIGN.md, "REST API", "Types"): their limits and pause flags, pausing and resuming one, and the
 * remote types an admin declares. Pause and resume are idempotent: answered 200 with the type's state whether or not
 * it changed; so is a declaration made again.
 */
@Path("/api/v1/types")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Types", description = "the task types, their limits and pause flags; remote types declared")
public class TypesResource {

    private static final String TYPE = "the task type's name";
    /** What a type's name matches (TaskHandlers.TYPE, SubmissionChecks.TYPE), written here for the document. */
    private static final String TYPE_NAME = "[a-z0-9][a-z0-9._-]{0,63}";

    private final TaskTypes types;
    private final RemoteTypes remote;
    private final Event<TasksBecameDue> due;
    private final SecurityIdentity identity;

    TypesResource(TaskTypes types, RemoteTypes remote, Event<TasksBecameDue> due, SecurityIdentity identity) {
        this.types = types;
        this.remote = remote;
        this.due = due;
        this.identity = identity;
    }

    /** Every registered type: what a client may submit, and what holds its tasks back. */
    @GET
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "listTypes", summary = "Every task type with its limits and pause flag")
    public List<TypeState> list() {
        KeyOwner caller = KeyOwner.of(identity);
        return caller.seesTheCluster() ? types.all() : types.limitsOnly();
    }

    /** Dispatch enqueues none of the type's tasks from now on; enqueued and running ones go on. */
    @POST
    @Path("/{type}/pause")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "pauseType", summary = "Stop enqueuing a type's tasks")
    public TypeState pause(
            @Parameter(description = TYPE, schema = @Schema(type = SchemaType.STRING, pattern = TYPE_NAME))
            @PathParam("type") String type) {
        types.pause(registered(type), KeyOwner.of(identity).name());
        return state(type);
    }

    /** Dispatch takes the type's due tasks again, starting now. */
    @POST
    @Path("/{type}/resume")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "resumeType", summary = "Enqueue a paused type's tasks again")
    public TypeState resume(
            @Parameter(description = TYPE, schema = @Schema(type = SchemaType.STRING, pattern = TYPE_NAME))
            @PathParam("type") String type) {
        if (types.resume(registered(type))) {
            due.fire(new TasksBecameDue());
        }
        return state(type);
    }

    /**
     * Declares a remote type (or changes the schema of one declared before): its tasks can be submitted from now on,
     * on every replica, and claimed by worker keys whose types are {@code *}.
     */
    @PUT
    @Path("/{type}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "declareType", summary = "Declare a remote task type, run by remote workers")
    @APIResponse(responseCode = "201", description = "the type, declared now",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = TypeState.class)))
    @APIResponse(responseCode = "200", description = "the type, declared before (its schema replaced)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = TypeState.class)))
    public Response declare(
            @Parameter(description = TYPE, schema = @Schema(type = SchemaType.STRING, pattern = TYPE_NAME))
            @PathParam("type") String type,
            @NotNull(message = "a JSON object with remote: true") @Valid TypeDeclaration body) {
        boolean created;
        try {
            created = remote.declare(type, body.schema() == null ? null : body.schema().toString(),
                    KeyOwner.of(identity).name());
        } catch (IllegalArgumentException refused) {
            throw Problems.unprocessable(refused.getMessage().startsWith("schema") ? "schema" : "type",
                    refused.getMessage());
        }
        return Response.status(created ? Status.CREATED : Status.OK).entity(state(type)).build();
    }

    /**
     * Takes back a remote type declared through the API, once none of its tasks waits or runs and no schedule names
     * it; its ended tasks stay, to be read.
     */
    @DELETE
    @Path("/{type}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "undeclareType", summary = "Take back a remote task type declared through the API")
    @APIResponse(responseCode = "204", description = "taken back")
    public Response undeclare(
            @Parameter(description = TYPE, schema = @Schema(type = SchemaType.STRING, pattern = TYPE_NAME))
            @PathParam("type") String type) {
        return switch (remote.undeclare(type)) {
            case REMOVED -> Response.noContent().build();
            case NOT_DECLARED -> throw Problems.of(Status.NOT_FOUND, "no remote type '" + type + "' was declared "
                    + "through the API");
            case CONFIGURED -> throw Problems.of(Status.CONFLICT, "'" + type + "' is remote by the configuration "
                    + "(taskfence.types." + type + ".remote), which only a new start changes");
            case STILL_USED -> throw Problems.of(Status.CONFLICT, "tasks of '" + type + "' wait or run, or a schedule "
                    + "names it: cancel or finish them, delete the schedule, then take the type back");
        };
    }

    private String registered(String type) {
        if (!types.registered(type)) {
            throw Problems.of(Status.NOT_FOUND, "no task type '" + type + "': the types are "
                    + types.all().stream().map(TypeState::type).toList());
        }
        return type;
    }

    private TypeState state(String type) {
        return types.all().stream().filter(state -> state.type().equals(type)).findFirst().orElseThrow();
    }
}

package io.taskfence.api;

import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.event.Event;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response.Status;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.types.TaskTypes;
import io.taskfence.types.TypeState;

/**
 * The task types (DESIGN.md, "REST API", "Types"): their limits and pause flags, and pausing and resuming one.
 * Pause and resume are idempotent: answered 200 with the type's state whether or not it changed.
 */
@Path("/api/v1/types")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
public class TypesResource {

    private final TaskTypes types;
    private final Event<TasksBecameDue> due;
    private final SecurityIdentity identity;

    TypesResource(TaskTypes types, Event<TasksBecameDue> due, SecurityIdentity identity) {
        this.types = types;
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
    public TypeState pause(@PathParam("type") String type) {
        types.pause(registered(type), KeyOwner.of(identity).name());
        return state(type);
    }

    /** Dispatch takes the type's due tasks again, starting now. */
    @POST
    @Path("/{type}/resume")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "resumeType", summary = "Enqueue a paused type's tasks again")
    public TypeState resume(@PathParam("type") String type) {
        if (types.resume(registered(type))) {
            due.fire(new TasksBecameDue());
        }
        return state(type);
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

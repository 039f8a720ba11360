package io.taskfence.api;

import java.util.List;
import java.util.Map;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.taskfence.api.auth.Roles;
import io.taskfence.lock.FencedLocks;
import io.taskfence.lock.LockHolder;
import io.taskfence.queue.TaskQueue;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.types.TaskTypes;
import io.taskfence.types.TypeState;

/** {@code GET /api/v1/stats}: the state of the whole cluster, as the shared servers see it. */
@Path("/api/v1/stats")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Stats", description = "the cluster's state")
public class StatsResource {

    /** The answer's shape (DESIGN.md, "REST API"). */
    @Schema(requiredProperties = { "tasks", "queueDepth", "locks", "replicas", "types" })
    public record Stats(Map<TaskStatus, Long> tasks, long queueDepth, List<LockHolder> locks, List<String> replicas,
            List<TypeState> types) {
    }

    private final TaskQueries queries;
    private final TaskQueue queue;
    private final FencedLocks locks;
    private final TaskTypes types;

    StatsResource(TaskQueries queries, TaskQueue queue, FencedLocks locks, TaskTypes types) {
        this.queries = queries;
        this.queue = queue;
        this.locks = locks;
        this.types = types;
    }

    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "getStats", summary = "Counts per status, queue depth, locks, replicas, limited and paused types")
    public Stats stats() {
        return new Stats(queries.countByStatus(), queue.depth(), locks.holders(), queue.consumers(),
                types.controlled());
    }
}

package io.taskfence.api.claims;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
import io.taskfence.remote.RemoteClaims;
import io.taskfence.remote.WorkerSightings;
import io.taskfence.task.query.ClaimsInHand;

/** The remote workers seen in the last hour (DESIGN.md, "Remote workers", "Workers seen"), for admin keys. */
@Path("/api/v1/workers")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Claims", description = "the worker API: remote workers claim tasks of remote types, report their end")
public class WorkersResource {

    /** One worker: its key and the name it gives itself, what it asked for, when it was last heard of. */
    @Schema(name = "Worker", requiredProperties = { "key", "name", "types", "claimsInHand", "lastSeenAt", "lastClaimAt",
            "lastHeartbeatAt" })
    public record Worker(
            @Schema(description = "the worker key's name") String key,
            @Schema(description = "the name it claims with (a claim's worker), \"worker\" when it gives none") String name,
            @Schema(description = "the types its last claim request named") Set<String> types,
            @Schema(description = "tasks PROCESSING under its claims now") long claimsInHand,
            @Schema(description = "its last call of the worker API") Instant lastSeenAt,
            @Schema(nullable = true, description = "when a claim request of it last got a task; null: not in the "
                    + "last hour") Instant lastClaimAt,
            @Schema(nullable = true, description = "its last heartbeat; null: none in the last hour")
            Instant lastHeartbeatAt) {
    }

    @Schema(name = "WorkerList", requiredProperties = "workers")
    public record Listing(List<Worker> workers) {
    }

    private final WorkerSightings sightings;
    private final ClaimsInHand inHand;

    WorkersResource(WorkerSightings sightings, ClaimsInHand inHand) {
        this.sightings = sightings;
        this.inHand = inHand;
    }

    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "listWorkers", summary = "The remote workers seen in the last hour, the latest first")
    public Listing list() {
        Map<String, Long> held = inHand.byClaimer();
        return new Listing(sightings.recent().stream().map(seen -> new Worker(seen.key(), seen.name(), seen.types(),
                held.getOrDefault(RemoteClaims.claimer(seen.key(), seen.name()), 0L), seen.lastSeenAt(),
                seen.lastClaimAt(), seen.lastHeartbeatAt())).toList());
    }
}

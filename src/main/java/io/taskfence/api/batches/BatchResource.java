package io.taskfence.api.batches;

import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
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
import io.taskfence.api.PageLimit;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.batch.BatchView;
import io.taskfence.task.batch.Batches;

/**
 * Batches over REST (DESIGN.md, "Batches"): made by {@code POST /api/v1/tasks/batch} with {@code then}, read and
 * closed here. A submit key sees its own batches; one out of its scope answers 404, as one that does not exist.
 */
@Path("/api/v1/batches")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Batches", description = "the batches of tasks a submission made, and their then tasks")
public class BatchResource {

    private static final String ID = "the batch's id";

    private final Batches batches;
    private final SecurityIdentity identity;

    BatchResource(Batches batches, SecurityIdentity identity) {
        this.batches = batches;
        this.identity = identity;
    }

    /** The batches newest first, with their counts. */
    @Schema(requiredProperties = "items")
    public record BatchList(List<BatchView> items) {
    }

    @GET
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "listBatches", summary = "The newest batches, with their counts")
    public BatchList list(
            @Parameter(description = "at most this many batches", schema = @Schema(type = SchemaType.INTEGER,
                    minimum = "1", maximum = "" + PageLimit.MAX, defaultValue = "20"))
            @QueryParam("limit") @DefaultValue("20") String limit) {
        return new BatchList(batches.newest(KeyOwner.of(identity).scope(), PageLimit.parse(limit)));
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "getBatch", summary = "One batch: its tasks' counts by outcome, and its then task")
    public BatchView get(
            @Parameter(description = ID, schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id) {
        return batches.find(CanonicalIds.parse(id).orElseThrow(() -> notFound(id)), KeyOwner.of(identity).scope())
                .orElseThrow(() -> notFound(id));
    }

    @POST
    @Path("/{id}/close")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "closeBatch", summary = "Close an open batch: no task joins it any more, and its then "
            + "task runs once its tasks have ended")
    public BatchView close(
            @Parameter(description = ID, schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id) {
        return batches.close(CanonicalIds.parse(id).orElseThrow(() -> notFound(id)), KeyOwner.of(identity).scope())
                .orElseThrow(() -> notFound(id));
    }

    private static ProblemException notFound(String id) {
        return Problems.of(Status.NOT_FOUND, "no batch with id '" + id + "'");
    }
}

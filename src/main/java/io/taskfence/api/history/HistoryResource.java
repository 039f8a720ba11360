package io.taskfence.api.history;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
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
import io.taskfence.api.Delay;
import io.taskfence.api.QueryInstant;
import io.taskfence.api.SubmissionChecks;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.KeyRules;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problems;
import io.taskfence.history.HistoryPoint;
import io.taskfence.history.HistoryReads;

/**
 * {@code GET /api/v1/stats/history} (DESIGN.md, "History of work"): what a type and an owner (or all) did, a point per
 * step. An admin key reads any series; a submit key its own tasks' only.
 */
@Path("/api/v1/stats/history")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Stats", description = "the cluster's state")
public class HistoryResource {

    private static final Duration DEFAULT_RANGE = Duration.ofHours(1);

    /** The answer. */
    @Schema(name = "History", requiredProperties = { "type", "owner", "from", "to", "step", "foldedUntil", "points" })
    public record History(
            @Schema(nullable = true, description = "the type asked for; null: all") String type,
            @Schema(nullable = true, description = "the owner asked for; null: all") String owner,
            @Schema(description = "the first point's start: from as asked, down to a whole step") Instant from,
            @Schema(description = "the end of the last point") Instant to,
            @Schema(description = "each point's span, as <n>m or <n>h") String step,
            @Schema(nullable = true, description = "tasks created and events written before this are folded in; "
                    + "null before the history job's first complete run") Instant foldedUntil,
            List<HistoryPoint> points) {
    }

    private final HistoryReads history;
    private final SecurityIdentity identity;

    HistoryResource(HistoryReads history, SecurityIdentity identity) {
        this.history = history;
        this.identity = identity;
    }

    @GET
    @RolesAllowed({ Roles.ADMIN, Roles.SUBMIT })
    @Operation(operationId = "getHistory", summary = "Started, ended and failed work and its wait and run times over "
            + "time, per minute for a day and per hour for the days kept")
    public History history(
            @Parameter(description = "only this type", schema = @Schema(type = SchemaType.STRING,
                    pattern = SubmissionChecks.TYPE)) @QueryParam("type") String type,
            @Parameter(description = "only this owner's tasks (an admin key; a submit key reads its own only)",
                    schema = @Schema(type = SchemaType.STRING, pattern = KeyRules.NAME_PATTERN))
            @QueryParam("owner") String owner,
            @Parameter(description = "from this instant (ISO-8601); default: an hour before to",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")) @QueryParam("from") String from,
            @Parameter(description = "to this instant (ISO-8601); default: now",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")) @QueryParam("to") String to,
            @Parameter(description = "each point's span, <n>m or <n>h; default: 1m up to 2 hours, 15m up to 2 days, "
                    + "else 1h", schema = @Schema(type = SchemaType.STRING, pattern = "[0-9]{1,4}(m|h)"))
            @QueryParam("step") String step) {
        if (type != null && !type.matches(SubmissionChecks.TYPE)) {
            throw Problems.invalid("query", "type", SubmissionChecks.TYPE_RULE);
        }
        if (owner != null && !owner.matches(KeyRules.NAME_PATTERN)) {
            throw Problems.invalid("query", "owner", "must be an API key's name: " + KeyRules.NAME_PATTERN);
        }
        KeyOwner caller = KeyOwner.of(identity);
        if (!caller.seesTheCluster()) {
            if (owner != null && !owner.equals(caller.name())) {
                throw Problems.of(Status.FORBIDDEN, "a submit key reads its own tasks' history only: owner must be '"
                        + caller.name() + "' or left out");
            }
            owner = caller.name();
        }
        Instant end = to == null ? Instant.now() : QueryInstant.parse(to, "to", "query");
        Instant start = from == null ? end.minus(DEFAULT_RANGE) : QueryInstant.parse(from, "from", "query");
        if (!start.isBefore(end)) {
            throw Problems.invalid("query", "from", "must be before to (" + end + "), not " + start);
        }
        Duration span = Duration.between(start, end);
        Duration each = step == null ? defaultStep(span) : parseStep(step);
        Instant aligned = Instant.ofEpochMilli(Math.floorDiv(start.toEpochMilli(), each.toMillis()) * each.toMillis());
        long points = (Duration.between(aligned, end).toMillis() + each.toMillis() - 1) / each.toMillis();
        if (points > HistoryReads.MAX_POINTS) {
            throw Problems.invalid("query", "step", "makes " + points + " points from " + aligned + " to " + end
                    + "; at most " + HistoryReads.MAX_POINTS + ": a longer step or a shorter range");
        }
        HistoryReads.Series series = history.read(type, owner, aligned, end, each);
        return new History(type, owner, aligned, aligned.plus(each.multipliedBy(series.points().size())),
                name(each), series.foldedUntil().orElse(null), series.points());
    }

    private static Duration defaultStep(Duration span) {
        return span.compareTo(Duration.ofHours(2)) <= 0 ? Duration.ofMinutes(1)
                : span.compareTo(Duration.ofDays(2)) <= 0 ? Duration.ofMinutes(15) : Duration.ofHours(1);
    }

    private static Duration parseStep(String step) {
        return Delay.parseSpan(step).filter(span -> step.matches("[0-9]{1,4}(m|h)") && !span.isZero())
                .orElseThrow(() -> Problems.invalid("query", "step", "must be whole minutes or hours, <n>m or <n>h "
                        + "(e.g. 1m, 15m, 1h), not '" + step + "'"));
    }

    private static String name(Duration step) {
        return step.toMinutes() % 60 == 0 ? step.toHours() + "h" : step.toMinutes() + "m";
    }
}

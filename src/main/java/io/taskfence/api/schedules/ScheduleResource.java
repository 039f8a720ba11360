package io.taskfence.api.schedules;

import java.net.URI;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.TaskfenceConfig;
import io.taskfence.api.SubmissionChecks;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.schedule.Cron;
import io.taskfence.schedule.CronType;
import io.taskfence.schedule.InvalidCronException;
import io.taskfence.schedule.Misfire;
import io.taskfence.schedule.Schedule;
import io.taskfence.schedule.Schedules;
import io.taskfence.task.submit.NewTask;

/**
 * Recurring schedules over REST (DESIGN.md, "REST API", "Schedules"), for admin keys only. A schedule is checked
 * whole before it is stored, on creation and after every change: its zone, its cron expression (which must
 * fire at least once more), and its task's type and payload as a submission's are ({@link SubmissionChecks}).
 */
@Path("/api/v1/schedules")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Schedules", description = "cron schedules that submit tasks")
public class ScheduleResource {

    /** Edits that lost to another write (the schedules job moves a schedule on every occurrence) are tried again. */
    private static final int EDIT_ATTEMPTS = 5;
    private static final String NAME = "the schedule's name";

    private final Schedules schedules;
    private final SubmissionChecks checks;
    private final int defaultMaxAttempts;
    private final SecurityIdentity identity;

    ScheduleResource(Schedules schedules, SubmissionChecks checks, TaskfenceConfig config, SecurityIdentity identity) {
        this.schedules = schedules;
        this.checks = checks;
        this.defaultMaxAttempts = config.retry().maxAttempts();
        this.identity = identity;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "createSchedule", summary = "Create a schedule")
    @APIResponse(responseCode = "201", description = "the schedule, with its next five fire times",
            headers = @Header(name = "Location", description = "the schedule's URL",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = ScheduleView.class)))
    public Response create(@NotNull(message = "a JSON object with at least name, cron, type and payload") @Valid
            ScheduleRequest body, UriInfo uri) {
        String cronType = Optional.ofNullable(body.cronType()).orElse(CronType.detect(body.cron()).id());
        Instant now = schedules.now();
        Schedule schedule = checked(new Draft(body.name(), body.cron(), cronType,
                Optional.ofNullable(body.zone()).orElse("UTC"), body.type(), body.payload(),
                Optional.ofNullable(body.priority()).orElse(0),
                Optional.ofNullable(body.maxAttempts()).orElse(defaultMaxAttempts),
                Optional.ofNullable(body.paused()).orElse(false),
                Optional.ofNullable(body.misfire()).orElse(Misfire.SKIP.id()), KeyOwner.of(identity).name(),
                body.dedupe() == null ? null : body.dedupe().of(body.name()),
                SubmissionChecks.timeout(body.timeout())), now, 0);
        firesAgain(schedule, now);
        Schedule created = schedules.create(schedule).orElseThrow(() -> Problems.about("name", Status.CONFLICT,
                "a schedule named '" + body.name() + "' exists already; PATCH it, or DELETE it first"));
        URI location = uri.getBaseUriBuilder().path(ScheduleResource.class).path(created.name()).build();
        return Response.created(location).entity(ScheduleView.of(created)).build();
    }

    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "listSchedules", summary = "Every schedule, by name")
    public ScheduleView.Listing list() {
        return new ScheduleView.Listing(schedules.all().stream().map(ScheduleView::of).toList());
    }

    @GET
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "getSchedule", summary = "One schedule with its next five fire times")
    public ScheduleView get(
            @Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING, pattern = SubmissionChecks.TYPE))
            @PathParam("name") String name) {
        return ScheduleView.of(schedules.find(name).orElseThrow(() -> notFound(name)));
    }

    /**
     * Changes the fields the body names. A changed cron, cron type or zone, and a resume, start over from the
     * next occurrence after now; otherwise the schedule keeps its place.
     */
    @PATCH
    @Path("/{name}")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "changeSchedule", summary = "Change the fields the body names")
    public ScheduleView change(
            @Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING, pattern = SubmissionChecks.TYPE))
            @PathParam("name") String name,
            @NotNull(message = "a JSON object with the fields to change") @Valid SchedulePatch body) {
        for (int attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
            Schedule stored = schedules.find(name).orElseThrow(() -> notFound(name));
            String cron = Optional.ofNullable(body.cron()).orElse(stored.cron());
            String cronType = Optional.ofNullable(body.cronType())
                    .orElse(body.cron() == null ? stored.cronType().id() : CronType.detect(cron).id());
            Draft draft = new Draft(name, cron, cronType,
                    Optional.ofNullable(body.zone()).orElse(stored.zone().getId()),
                    Optional.ofNullable(body.type()).orElse(stored.type()),
                    // Jackson reads "payload": null as a JSON null node, not as absent.
                    Optional.<JsonNode>ofNullable(body.payload()).filter(payload -> !payload.isNull())
                            .orElse(stored.payload()),
                    Optional.ofNullable(body.priority()).orElse(stored.priority()),
                    Optional.ofNullable(body.maxAttempts()).orElse(stored.maxAttempts()),
                    Optional.ofNullable(body.paused()).orElse(stored.paused()),
                    Optional.ofNullable(body.misfire()).orElse(stored.misfire().id()), stored.owner(),
                    body.dedupe() == null ? stored.dedupe() : body.dedupe().of(name),
                    body.timeout() == null ? stored.timeout()
                            : "none".equals(body.timeout()) ? null : SubmissionChecks.timeout(body.timeout()));
            Instant now = schedules.now();
            Schedule changed = checked(draft, now, stored.version());
            boolean startOver = !changed.cron().equals(stored.cron()) || changed.cronType() != stored.cronType()
                    || !changed.zone().equals(stored.zone()) || (stored.paused() && !changed.paused());
            if (startOver) {
                firesAgain(changed, now);
            } else {
                // Keeps its place, even one whose cron has run out: such a schedule can still be paused or edited.
                changed = changed.firingNextAt(stored.nextFireAt());
            }
            Optional<Schedule> updated = schedules.update(changed);
            if (updated.isPresent()) {
                return ScheduleView.of(updated.get());
            }
        }
        throw Problems.of(Status.CONFLICT, "schedule '" + name + "' changed " + EDIT_ATTEMPTS
                + " times while this change was made; try again");
    }

    /** Deletes the schedule; the tasks it made stay as they are. */
    @DELETE
    @Path("/{name}")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "deleteSchedule", summary = "Delete a schedule; the tasks it made stay")
    @APIResponse(responseCode = "204", description = "deleted")
    public Response delete(
            @Parameter(description = NAME, schema = @Schema(type = SchemaType.STRING, pattern = SubmissionChecks.TYPE))
            @PathParam("name") String name) {
        if (!schedules.delete(name)) {
            throw notFound(name);
        }
        return Response.noContent().build();
    }

    /** A schedule's fields as the request gives them, not yet checked; {@code owner} is the key that made it. */
    private record Draft(String name, String cron, String cronType, String zone, String type, JsonNode payload,
            int priority, int maxAttempts, boolean paused, String misfire, String owner, NewTask.Dedupe dedupe,
            Duration timeout) {
    }

    /**
     * The schedule {@code draft} describes, at {@code version}, its next occurrence the first after
     * {@code now} (none if its cron has no more); or the problem that names the field at fault.
     */
    private Schedule checked(Draft draft, Instant now, long version) {
        ZoneId zone;
        try {
            zone = ZoneId.of(draft.zone());
        } catch (DateTimeException e) {
            throw Problems.about("zone", Status.BAD_REQUEST, "zone '" + draft.zone() + "' is not a time zone: "
                    + e.getMessage() + "; use an IANA id such as Europe/Berlin, or UTC");
        }
        CronType type = CronType.of(draft.cronType()).orElseThrow();
        Cron cron;
        try {
            cron = Cron.of(draft.cron(), type, zone);
        } catch (InvalidCronException e) {
            throw Problems.about("cron", Status.BAD_REQUEST, e.getMessage());
        }
        checks.typeAndPayload(draft.type(), draft.payload(), draft.owner()); // its tasks are its owner's
        checks.priorityAllowed(draft.priority(), draft.owner());
        return new Schedule(draft.name(), draft.cron(), type, zone, draft.type(), (ObjectNode) draft.payload(),
                draft.priority(), draft.maxAttempts(), draft.paused(), Misfire.of(draft.misfire()).orElseThrow(),
                cron.after(now).orElse(null), version, null, null, draft.owner(), draft.dedupe(), draft.timeout());
    }

    /** A schedule that is made, or starts over, must have an occurrence to come. */
    private static void firesAgain(Schedule schedule, Instant now) {
        if (schedule.nextFireAt() == null) {
            throw Problems.unprocessable("cron", "cron '" + schedule.cron() + "' does not fire after " + now);
        }
    }

    private static ProblemException notFound(String name) {
        return Problems.of(Status.NOT_FOUND, "no schedule named '" + name + "'");
    }
}

package io.taskfence.api;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.TaskfenceConfig;
import io.taskfence.dispatch.Dispatcher;
import io.taskfence.task.NewTask;
import io.taskfence.task.Submission;
import io.taskfence.task.Task;
import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskHandlers;
import io.taskfence.task.TaskPage;
import io.taskfence.task.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;

/** Tasks over REST (DESIGN section 5). */
@Path("/api/v1/tasks")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
public class TaskResource {

    static final int MAX_PAYLOAD_BYTES = 64 * 1024;
    static final int MAX_PAGE = 500;

    private final TaskTransitions transitions;
    private final TaskQueries queries;
    private final TaskHandlers handlers;
    private final TaskfenceConfig config;
    private final Dispatcher dispatcher;

    TaskResource(TaskTransitions transitions, TaskQueries queries, TaskHandlers handlers, TaskfenceConfig config,
            Dispatcher dispatcher) {
        this.transitions = transitions;
        this.dispatcher = dispatcher;
        this.queries = queries;
        this.handlers = handlers;
        this.config = config;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    public Response submit(@NotNull(message = "a JSON object with at least type and payload") @Valid SubmitRequest body,
            @HeaderParam("Idempotency-Key") @Pattern(regexp = "[\\x21-\\x7e]{1,200}",
                    message = "must be 1 to 200 visible ASCII characters") String idempotencyKey,
            UriInfo uri) {
        if (!body.payload().isObject()) {
            throw Problems.of(Status.BAD_REQUEST, "payload must be a JSON object, not " + body.payload().getNodeType());
        }
        int payloadBytes = body.payload().toString().getBytes(StandardCharsets.UTF_8).length;
        if (payloadBytes > MAX_PAYLOAD_BYTES) {
            throw Problems.of(Status.REQUEST_ENTITY_TOO_LARGE,
                    "payload is " + payloadBytes + " bytes of JSON; at most " + MAX_PAYLOAD_BYTES + " are accepted");
        }
        TaskHandler handler = handlers.forType(body.type()).orElseThrow(() -> Problems.unprocessable(
                "no handler for task type '" + body.type() + "'; registered types: " + handlers.types()));
        // A payload its handler can never run would only become a DEAD task later; say so now instead.
        List<String> problems = handler.payloadProblems((ObjectNode) body.payload());
        if (!problems.isEmpty()) {
            throw Problems.unprocessable("payload of a '" + body.type() + "' task: " + String.join("; ", problems));
        }
        if (body.deadline() != null && body.runAt() != null && !body.deadline().isAfter(body.runAt())) {
            throw Problems.of(Status.BAD_REQUEST, "deadline must be after runAt");
        }
        Submission submission = transitions.submit(new NewTask(body.type(), (ObjectNode) body.payload(),
                Optional.ofNullable(body.maxAttempts()).orElse(config.retry().maxAttempts()),
                Optional.ofNullable(body.priority()).orElse(0), body.runAt(), body.deadline(), idempotencyKey));
        Task task = submission.task();
        if (submission.created()) {
            dispatcher.nudge();
        }
        URI location = uri.getBaseUriBuilder().path(TaskResource.class).path(task.id().toString()).build();
        return Response.status(submission.created() ? Status.CREATED : Status.OK).location(location).entity(task).build();
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    public Task get(@PathParam("id") String id) {
        UUID taskId = taskId(id);
        return queries.find(taskId).orElseThrow(() -> notFound(id));
    }

    /** Newest first; {@code next} is the {@code after} of the following page. */
    @GET
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    public TaskPage list(@QueryParam("status") String status,
            @QueryParam("type") @Pattern(regexp = "[a-z0-9][a-z0-9._-]{0,63}",
                    message = "must match [a-z0-9][a-z0-9._-]{0,63}") String type,
            @QueryParam("limit") @DefaultValue("50") String limit,
            @QueryParam("after") String after) {
        return queries.page(status == null ? null : status(status), type, limit(limit), after);
    }

    @POST
    @Path("/{id}/cancel")
    @RolesAllowed(Roles.ADMIN)
    public Task cancel(@PathParam("id") String id) {
        return transitions.cancel(taskId(id)).orElseThrow(() -> refused(id, "cancel", "PENDING, ENQUEUED or FAILED"));
    }

    @POST
    @Path("/{id}/retry")
    @RolesAllowed(Roles.ADMIN)
    public Task retry(@PathParam("id") String id) {
        return transitions.retry(taskId(id)).orElseThrow(() -> refused(id, "retry", "DEAD or CANCELLED"));
    }

    // Parameters are parsed here rather than by JAX-RS, which answers a bad one with a bare 404.

    private static UUID taskId(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw notFound(id);
        }
    }

    private static TaskStatus status(String status) {
        try {
            return TaskStatus.valueOf(status);
        } catch (IllegalArgumentException e) {
            throw Problems.of(Status.BAD_REQUEST, "status must be one of " + Arrays.toString(TaskStatus.values())
                    + ", not '" + status + "'");
        }
    }

    private static int limit(String limit) {
        try {
            int value = Integer.parseInt(limit);
            if (value >= 1 && value <= MAX_PAGE) {
                return value;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw Problems.of(Status.BAD_REQUEST, "limit must be a whole number from 1 to " + MAX_PAGE + ", not '" + limit + "'");
    }

    /** The transition lost: say why, from the task's state now (it may have moved on already). */
    private ProblemException refused(String id, String action, String allowedFrom) {
        Task task = queries.find(taskId(id)).orElseThrow(() -> notFound(id));
        return Problems.of(Status.CONFLICT, "cannot " + action + " task " + id + ": it is " + task.status()
                + ", and only a task that is " + allowedFrom + " can be");
    }

    private static ProblemException notFound(String id) {
        return Problems.of(Status.NOT_FOUND, "no task with id '" + id + "'");
    }
}

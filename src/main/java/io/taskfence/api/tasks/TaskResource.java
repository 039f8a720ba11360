package io.taskfence.api.tasks;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.event.Event;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
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
import org.jboss.resteasy.reactive.RestResponse;

import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.taskfence.TaskfenceConfig;
import io.taskfence.api.CanonicalIds;
import io.taskfence.api.LongPoll;
import io.taskfence.api.QueryInstant;
import io.taskfence.api.auth.HeldPerKey;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.Task;
import io.taskfence.task.TaskCancelled;
import io.taskfence.task.TaskEvent;
import io.taskfence.task.query.TaskCount;
import io.taskfence.task.query.TaskFilter;
import io.taskfence.task.TaskField;
import io.taskfence.task.TaskHistory;
import io.taskfence.task.query.TaskPage;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskScope;
import io.taskfence.task.TasksBecameDue;
import io.taskfence.task.batch.Batches;
import io.taskfence.task.submit.Retries;
import io.taskfence.task.transition.OperatorControls;

/**
 * Tasks over REST (DESIGN.md, "REST API"). A submit key sees and acts on the tasks it submitted only, an admin key
 * on all ({@link KeyOwner}); a task out of the caller's scope answers 404, as one that does not exist.
 */
@Path("/api/v1/tasks")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Tasks", description = "submit tasks, one or up to 1,000 at once; read, list, count, cancel, retry them")
public class TaskResource {

    private static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final String ID = "the task's id";

    private final BulkSubmissions bulk;
    private final OperatorControls controls;
    private final Retries retries;
    private final TaskQueries queries;
    private final NewTasks newTasks;
    private final Event<TasksBecameDue> due;
    private final Event<TaskCancelled> cancels;
    private final TaskHistory history;
    private final SecurityIdentity identity;
    private final TaskWaits waits;
    private final Batches batchViews;
    private final Searches searches;
    private final HeldPerKey held;
    private final int countCap;

    TaskResource(BulkSubmissions bulk, OperatorControls controls, Retries retries,
            TaskQueries queries, NewTasks newTasks, Event<TasksBecameDue> due, Event<TaskCancelled> cancels,
            TaskHistory history, SecurityIdentity identity, TaskWaits waits, Batches batchViews, Searches searches,
            HeldPerKey held, TaskfenceConfig config) {
        this.searches = searches;
        this.held = held;
        this.countCap = config.api().countCap();
        this.waits = waits;
        this.batchViews = batchViews;
        this.bulk = bulk;
        this.controls = controls;
        this.retries = retries;
        this.queries = queries;
        this.newTasks = newTasks;
        this.due = due;
        this.cancels = cancels;
        this.history = history;
        this.identity = identity;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "submitTask", summary = "Submit a task")
    @APIResponse(responseCode = "201", description = "the task, stored by this request",
            headers = @Header(name = "Location", description = "the task's URL",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Task.class)))
    @APIResponse(responseCode = "200", description = "the task an earlier request with this Idempotency-Key and the "
            + "same type, payload and concurrencyKey made, nothing stored; or the unstarted task the dedupe key holds, "
            + "ignored, replaced or debounced",
            headers = @Header(name = "Location", description = "the task's URL",
                    schema = @Schema(type = SchemaType.STRING, format = "uri")),
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Task.class)))
    public Uni<Response> submit(@NotNull(message = NewTasks.NOT_A_TASK) @Valid SubmitRequest body,
            @Parameter(description = "makes sending the request again safe: the same key with the same type, payload "
                    + "and concurrencyKey answers 200 with the task it made, with another 422")
            @HeaderParam(IDEMPOTENCY_KEY) @Pattern(regexp = NewTasks.IDEMPOTENCY_KEY,
                    message = NewTasks.IDEMPOTENCY_KEY_RULE) String idempotencyKey,
            HttpHeaders headers, UriInfo uri) {
        // JAX-RS hands an empty header over as none; a client that sent one meant a key, so it is refused.
        if (idempotencyKey == null && headers.getHeaderString(IDEMPOTENCY_KEY) != null) {
            throw Problems.invalid("header", IDEMPOTENCY_KEY, NewTasks.IDEMPOTENCY_KEY_RULE);
        }
        URI base = uri.getBaseUri();
        return newTasks.stored(body, idempotencyKey, caller().name()).map(submission -> {
            Task task = submission.task();
            // A task made, or one a dedupe key holds whose runAt a replace moved to now: due, so dispatch is woken.
            if (submission.created() || NewTasks.dueNow(task)) {
                due.fire(new TasksBecameDue());
            }
            URI location = UriBuilder.fromUri(base).path(TaskResource.class).path(task.id().toString()).build();
            return Response.status(submission.created() ? Status.CREATED : Status.OK).location(location).entity(task)
                    .build();
        });
    }

    /**
     * Up to 1,000 tasks in one request and one insert ({@link BulkSubmissions}). Answered 200, every task's outcome
     * in the request's order; 429 and nothing stored when the tasks to store would take the key past its quota.
     */
    @POST
    @Path("/batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "submitTasks", summary = "Submit up to 1,000 tasks, each answered on its own")
    public BulkAnswer submitBatch(@NotNull(message = "a JSON object {\"tasks\": [...]} with 1 to "
            + BulkRequest.MAX_TASKS + " tasks") @Valid BulkRequest body, UriInfo uri) {
        return bulk.submit(body, caller().name(), uri);
    }

    /**
     * One task; with {@code wait}, answered once the task has ended (or, with {@code progressAfter}, shows progress
     * written after that instant) or the wait is over, whichever comes first, without a thread waiting meanwhile
     * (DESIGN.md, "REST API", "Waiting for a result").
     */
    @GET
    @Path("/{id}")
    @Blocking // the task is read from PostgreSQL on a worker thread; a wait holds none
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "getTask", summary = "One task, or the task once it has ended if asked to wait")
    public Uni<Task> get(
            @Parameter(description = ID, schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id,
            @Parameter(description = "answer once the task has ended (SUCCEEDED, DEAD or CANCELLED) or this long has "
                    + "passed: <n>s or <n>ms, at most 60s",
                    schema = @Schema(type = SchemaType.STRING, pattern = LongPoll.PATTERN))
            @QueryParam("wait") String wait,
            @Parameter(description = "with wait: answer also once the task shows progress written after this instant "
                    + "(the progressAt of the last answer, or its createdAt if it had none)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time"))
            @QueryParam("progressAfter") String progressAfter) {
        UUID taskId = taskId(id);
        TaskScope scope = caller().scope();
        Duration waitFor = wait == null ? Duration.ZERO : LongPoll.parse(wait)
                .orElseThrow(() -> Problems.invalid("query", "wait", LongPoll.RULE));
        Instant after = QueryInstant.parse(progressAfter, "progressAfter", "query");
        if (after != null && waitFor.isZero()) {
            throw Problems.invalid("query", "progressAfter", "must come with wait (e.g. wait=30s)");
        }
        if (waitFor.isZero()) {
            return Uni.createFrom().item(queries.find(taskId, scope).orElseThrow(() -> notFound(id)));
        }
        HeldPerKey.Hold place = held.longPoll(caller().name());
        return waits.answer(taskId, () -> queries.find(taskId, scope).orElseThrow(() -> notFound(id)), waitFor, after,
                place::close);
    }

    /**
     * The task's history (DESIGN.md, "REST API", "History"): every committed status change, oldest first; the newest
     * {@value TaskHistory#MAX_EVENTS} of a task that has more.
     */
    @GET
    @Path("/{id}/events")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "getTaskEvents", summary = "A task's history, oldest first")
    public TaskEvents events(
            @Parameter(description = ID, schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id) {
        KeyOwner caller = caller();
        List<TaskEvent> events = history.events(taskId(id), caller.scope()).orElseThrow(() -> notFound(id));
        // Which pod ran an attempt is the operators' business, not a tenant's.
        return new TaskEvents(caller.seesTheCluster() ? events
                : events.stream().map(TaskEvent::withoutWorker).toList());
    }

    /**
     * Newest first; {@code next} is the {@code after} of the following page. The filters narrow the tasks
     * ({@link FilterParams}); a submit key sees its own whatever it asks for. Payloads and results, up to 64 KiB each,
     * are left out unless {@code fields} names them. A text or error search is bounded ({@link Searches}).
     */
    @GET
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "listTasks", summary = "A page of tasks, newest first", description = "With text or error "
            + "and no createdAfter, over the tasks created in the last taskfence.api.search-window (24 h) only: the "
            + "Searched-Created-After header gives the start it used")
    public RestResponse<TaskPage> list(@BeanParam FilterParams filter, @BeanParam PageParams page) {
        KeyOwner caller = caller();
        TaskFilter asked = filter.filter();
        int pageLimit = page.limit();
        Set<TaskField> read = page.fields();
        String after = page.after();
        if (!asked.searches()) {
            return RestResponse.ok(queries.page(caller.scope(), asked, pageLimit, after, read));
        }
        Instant windowFrom = after == null ? null : queries.createdAfterOf(after).orElse(null);
        return searches.run(caller.name(), asked, windowFrom,
                bounded -> queries.page(caller.scope(), bounded, pageLimit, after, read));
    }

    /**
     * How many tasks the listing's filters let through, up to {@code taskfence.api.count-cap} ("at least" past it);
     * with {@code action} ({@code cancel} or {@code retry}), how many of those a bulk action would take (the ones in a
     * status it moves from), as its confirmation shows. {@code createdBefore} of the answer is the bound it counted
     * to: an action given it takes what was counted, not what came since.
     */
    @GET
    @Path("/count")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "countTasks", summary = "How many tasks match the listing's filters", description = "At "
            + "most taskfence.api.count-cap (10,000): past it, count is the cap and atLeast is true. createdAfter and "
            + "createdBefore are the bounds it counted in (createdAfter: the filter's or the search window's start, or "
            + "null; createdBefore: the filter's, or the time it counted), to give an action that should take what was "
            + "counted")
    public RestResponse<TaskCount> count(@BeanParam FilterParams filter,
            @Parameter(description = "count only the tasks this bulk action would take (in a status it moves from)",
                    schema = @Schema(type = SchemaType.STRING, enumeration = { "cancel", "retry" }))
            @QueryParam("action") String action) {
        TaskFilter chosen = filter.filter();
        if (action != null) {
            chosen = FilterParams.forAction(FilterParams.bulkAction(action), chosen, "query");
        }
        KeyOwner caller = caller();
        return searches.run(caller.name(), chosen, bounded -> queries.countAtMost(caller.scope(), bounded, countCap));
    }

    @POST
    @Path("/{id}/cancel")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "cancelTask", summary = "Cancel a task that has not ended; a running handler is interrupted")
    public Task cancel(
            @Parameter(description = ID, schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id) {
        Task cancelled = controls.cancel(taskId(id), caller().scope())
                .orElseThrow(() -> refused(id, "cancel", "WAITING, PENDING, ENQUEUED, PROCESSING or FAILED"));
        cancels.fire(new TaskCancelled(cancelled.id()));
        return cancelled;
    }

    @POST
    @Path("/{id}/retry")
    @RolesAllowed({ Roles.SUBMIT, Roles.ADMIN })
    @Operation(operationId = "retryTask", summary = "Run a DEAD or CANCELLED task again")
    public Task retry(
            @Parameter(description = ID, schema = @Schema(type = SchemaType.STRING, format = "uuid"))
            @PathParam("id") String id) {
        TaskScope scope = caller().scope();
        Task retried = retries.retry(taskId(id), scope).orElseThrow(() -> batchViews.incompleteWithThen(taskId(id), scope)
                .map(batch -> Problems.of(Status.CONFLICT, "cannot retry task " + id + ": it is the then task of batch "
                        + batch + ", which has not completed; retry it once the batch is COMPLETE, and it runs with "
                        + "the batch's outcome"))
                .orElseGet(() -> refused(id, "retry", "DEAD or CANCELLED")));
        due.fire(new TasksBecameDue());
        return retried;
    }

    // Parameters are parsed here rather than by JAX-RS, which answers a bad one with a bare 404.

    private static UUID taskId(String id) {
        return CanonicalIds.parse(id).orElseThrow(() -> notFound(id));
    }

    /** The transition lost: say why, from the task's state now (it may have moved on already). */
    private ProblemException refused(String id, String action, String allowedFrom) {
        Task task = queries.find(taskId(id), caller().scope()).orElseThrow(() -> notFound(id));
        return Problems.of(Status.CONFLICT, "cannot " + action + " task " + id + ": it is " + task.status()
                + ", and only a task that is " + allowedFrom + " can be");
    }

    private KeyOwner caller() {
        return KeyOwner.of(identity);
    }

    private static ProblemException notFound(String id) {
        return Problems.of(Status.NOT_FOUND, "no task with id '" + id + "'");
    }
}

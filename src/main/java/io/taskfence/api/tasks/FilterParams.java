package io.taskfence.api.tasks;

import java.util.Arrays;
import java.util.Set;
import java.util.UUID;

import jakarta.ws.rs.QueryParam;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

import io.taskfence.api.CanonicalIds;
import io.taskfence.api.QueryInstant;
import io.taskfence.api.SubmissionChecks;
import io.taskfence.api.auth.KeyRules;
import io.taskfence.api.problem.Problems;
import io.taskfence.task.query.TaskFilter;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.action.BulkAction;

/**
 * The query parameters that choose tasks, for a listing and a count alike (DESIGN.md, "REST API", "Listing"), read
 * into a {@link TaskFilter}, and the same filters in a bulk action's body (api.actions); a bad one is 400 naming it.
 * Parsed here rather than by JAX-RS, which answers a bad one with a bare 404.
 */
public class FilterParams {

    /** The longest text {@code error} and {@code text} may search for. */
    static final int MAX_SEARCH = 200;
    private static final String SEARCHED = "without createdAfter, among the tasks created in the last "
            + "taskfence.api.search-window (24 h), which Searched-Created-After gives";

    @QueryParam("status")
    @Parameter(description = "only tasks in this status", schema = @Schema(implementation = TaskStatus.class))
    String status;
    @QueryParam("type")
    @Parameter(description = "only tasks of this type",
            schema = @Schema(type = SchemaType.STRING, pattern = SubmissionChecks.TYPE))
    String type;
    @QueryParam("owner")
    @Parameter(description = "only tasks submitted with this API key, by its name (a submit key sees its own only)",
            schema = @Schema(type = SchemaType.STRING, pattern = KeyRules.NAME_PATTERN))
    String owner;
    @QueryParam("batch")
    @Parameter(description = "only the tasks of this batch",
            schema = @Schema(type = SchemaType.STRING, format = "uuid"))
    String batch;
    @QueryParam("createdAfter")
    @Parameter(description = "only tasks created at or after this time",
            schema = @Schema(type = SchemaType.STRING, format = "date-time"))
    String createdAfter;
    @QueryParam("createdBefore")
    @Parameter(description = "only tasks created before this time",
            schema = @Schema(type = SchemaType.STRING, format = "date-time"))
    String createdBefore;
    @QueryParam("error")
    @Parameter(description = "only tasks whose last error holds this text, any case; " + SEARCHED,
            schema = @Schema(type = SchemaType.STRING, minLength = 1, maxLength = MAX_SEARCH))
    String error;
    @QueryParam("text")
    @Parameter(description = "only tasks whose payload or last error holds this text, any case; " + SEARCHED,
            schema = @Schema(type = SchemaType.STRING, minLength = 1, maxLength = MAX_SEARCH))
    String text;

    TaskFilter filter() {
        return filter(status, type, owner, batch, createdAfter, createdBefore, error, text, "query");
    }

    /** The filter these values name, each checked; {@code in} says where they came from ("query", "body"). */
    public static TaskFilter filter(String status, String type, String owner, String batch, String createdAfter,
            String createdBefore, String error, String text, String in) {
        if (type != null && !type.matches(SubmissionChecks.TYPE)) {
            throw Problems.invalid(in, "type", SubmissionChecks.TYPE_RULE);
        }
        if (owner != null && !owner.matches(KeyRules.NAME_PATTERN)) {
            throw Problems.invalid(in, "owner", "must be an API key's name: " + KeyRules.NAME_PATTERN);
        }
        UUID batchId = batch == null ? null : CanonicalIds.parse(batch)
                .orElseThrow(() -> Problems.invalid(in, "batch", "must be a batch's id (a UUID), not '" + batch + "'"));
        return new TaskFilter(owner, status == null ? null : Set.of(status(status, in)), type, batchId,
                QueryInstant.parse(createdAfter, "createdAfter", in),
                QueryInstant.parse(createdBefore, "createdBefore", in),
                search(error, "error", in), search(text, "text", in));
    }

    private static TaskStatus status(String status, String in) {
        try {
            return TaskStatus.valueOf(status);
        } catch (IllegalArgumentException e) {
            throw Problems.invalid(in, "status", "must be one of " + Arrays.toString(TaskStatus.values()) + ", not '"
                    + status + "'");
        }
    }

    private static String search(String value, String name, String in) {
        if (value != null && (value.isBlank() || value.length() > MAX_SEARCH || value.indexOf('\0') >= 0)) {
            throw Problems.invalid(in, name, "must be 1 to " + MAX_SEARCH + " characters to search for, not blank");
        }
        return value;
    }

    /** The bulk action named {@code action} in a query: 400 if it names none. */
    static BulkAction bulkAction(String action) {
        return Arrays.stream(BulkAction.values()).filter(known -> known.key().equals(action)).findFirst()
                .orElseThrow(() -> Problems.invalid("query", "action", "must be cancel or retry, not '" + action + "'"));
    }

    /** {@code filter} narrowed to the statuses {@code action} moves from; 400 if it names another. */
    public static TaskFilter forAction(BulkAction action, TaskFilter filter, String in) {
        if (filter.statuses() != null && !action.from().containsAll(filter.statuses())) {
            throw Problems.invalid(in, "status", "a " + action.key() + " moves tasks that are "
                    + action.from().stream().map(Enum::name).sorted().toList() + ", not "
                    + filter.statuses().iterator().next());
        }
        return filter.within(action.from());
    }
}

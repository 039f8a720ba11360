package io.taskfence.api.tasks;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Set;
import java.util.UUID;

import jakarta.ws.rs.QueryParam;

import io.taskfence.api.CanonicalIds;
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

    @QueryParam("status")
    String status;
    @QueryParam("type")
    String type;
    @QueryParam("owner")
    String owner;
    @QueryParam("batch")
    String batch;
    @QueryParam("createdAfter")
    String createdAfter;
    @QueryParam("createdBefore")
    String createdBefore;
    @QueryParam("error")
    String error;
    @QueryParam("text")
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
                instant(createdAfter, "createdAfter", in), instant(createdBefore, "createdBefore", in),
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

    private static Instant instant(String value, String name, String in) {
        if (value == null) {
            return null;
        }
        try {
            Instant instant = Instant.parse(value);
            if (!instant.isBefore(SubmissionChecks.EARLIEST) && !instant.isAfter(SubmissionChecks.LATEST)) {
                return instant;
            }
        } catch (DateTimeParseException e) {
            // answered below
        }
        throw Problems.invalid(in, name, "must be an ISO-8601 instant from " + SubmissionChecks.EARLIEST + " to "
                + SubmissionChecks.LATEST + ", not '" + value + "'");
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

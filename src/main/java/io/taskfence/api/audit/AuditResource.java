package io.taskfence.api.audit;

import java.time.Instant;
import java.util.List;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.taskfence.api.PageLimit;
import io.taskfence.api.QueryInstant;
import io.taskfence.api.auth.KeyRules;
import io.taskfence.api.auth.Roles;
import io.taskfence.api.problem.Problems;
import io.taskfence.audit.AuditEntry;
import io.taskfence.audit.AuditLog;

/** The audit log over REST (DESIGN.md, "REST API", "Audit log"), for admin keys only: newest first, a page at a time. */
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
@SecurityRequirement(name = "apiKey")
@Tag(name = "Audit", description = "who changed what with an admin key, when, and how it was answered")
public class AuditResource {

    /** One entry as answered. */
    @Schema(name = "AuditEntry", requiredProperties = { "at", "key", "requestId", "operation", "method", "path",
            "status", "location" })
    public record Entry(
            @Schema(description = "when it was recorded, once answered") Instant at,
            @Schema(description = "the admin key's name") String key,
            @Schema(description = "the request's X-Request-Id, the caller's or one made for it") String requestId,
            @Schema(description = "the API operation (its operationId); none if no operation matched") String operation,
            @Schema(description = "the request's HTTP method") String method,
            @Schema(description = "the request's path as sent (percent-encoded), without its query") String path,
            @Schema(description = "the answer's HTTP status") int status,
            @Schema(nullable = true, description = "the answer's Location (what it made), or null") String location) {

        static Entry of(AuditEntry entry) {
            return new Entry(entry.at(), entry.key(), entry.requestId(), entry.operation(), entry.method(),
                    entry.path(), entry.status(), entry.location());
        }
    }

    /** A page of entries; {@code next} is the {@code after} of the following page, null on the last. */
    @Schema(name = "AuditPage", requiredProperties = { "items", "next" })
    public record AuditPage(List<Entry> items,
            @Schema(nullable = true, description = "the after of the next page; null on the last") String next) {
    }

    private static final String OPERATION = "[A-Za-z]{1,64}";

    private final AuditLog log;

    AuditResource(AuditLog log) {
        this.log = log;
    }

    @GET
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "listAudit", summary = "The audit log's entries, newest first")
    public AuditPage list(
            @Parameter(description = "only this key's entries (its name)", schema = @Schema(type = SchemaType.STRING,
                    pattern = KeyRules.NAME_PATTERN)) @QueryParam("key") String key,
            @Parameter(description = "only this operation's entries (its operationId, e.g. pauseType)",
                    schema = @Schema(type = SchemaType.STRING, pattern = OPERATION))
            @QueryParam("operation") String operation,
            @Parameter(description = "entries recorded at or after this instant (ISO-8601)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")) @QueryParam("from") String from,
            @Parameter(description = "entries recorded before this instant (ISO-8601)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")) @QueryParam("to") String to,
            @Parameter(description = "the next of an earlier page, exactly as given: the page that follows it",
                    schema = @Schema(type = SchemaType.STRING, pattern = "[0-9]{1,18}")) @QueryParam("after") String after,
            @Parameter(description = "at most this many entries on the page", schema = @Schema(type = SchemaType.INTEGER,
                    minimum = "1", maximum = "" + PageLimit.MAX, defaultValue = "50"))
            @QueryParam("limit") @DefaultValue("50") String limit) {
        int size = PageLimit.parse(limit);
        if (key != null && !key.matches(KeyRules.NAME_PATTERN)) {
            throw Problems.invalid("query", "key", "must be an API key's name (" + KeyRules.NAME_PATTERN + "), not '"
                    + key + "'");
        }
        if (operation != null && !operation.matches(OPERATION)) {
            throw Problems.invalid("query", "operation", "must be an operationId (" + OPERATION + "), not '"
                    + operation + "'");
        }
        AuditLog.Filter filter = new AuditLog.Filter(key, operation, QueryInstant.parse(from, "from", "query"),
                QueryInstant.parse(to, "to", "query"), cursor(after));
        // One more than the page: whether a next page exists, without a count.
        List<AuditEntry> entries = log.page(filter, size + 1);
        List<AuditEntry> page = entries.subList(0, Math.min(size, entries.size()));
        String next = entries.size() > size ? Long.toString(page.getLast().id()) : null;
        return new AuditPage(page.stream().map(Entry::of).toList(), next);
    }

    private static Long cursor(String after) {
        if (after == null) {
            return null;
        }
        if (after.matches("[0-9]{1,18}")) {
            return Long.parseLong(after);
        }
        throw Problems.invalid("query", "after", "must be the next of an earlier page, not '" + after + "'");
    }
}

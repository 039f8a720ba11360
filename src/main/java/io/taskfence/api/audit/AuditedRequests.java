package io.taskfence.api.audit;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ResourceInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.taskfence.api.auth.KeyOwner;
import io.taskfence.audit.AuditEntry;
import io.taskfence.audit.AuditLog;

/**
 * Gives every API request an id and records each change an admin key asked for in the {@link AuditLog} once it is
 * answered (DESIGN.md, "REST API", "Audit log"): not a read, a submission, a request no operation matched or one the
 * key's rate refused. The id is the caller's {@code X-Request-Id} if it is a plain token of at most 100 characters,
 * else one made here; it is answered in {@code X-Request-Id}. Recorded: the key's name, the id, the operation (its
 * OpenAPI operationId), method, path, status and Location; never a body nor a header, which may carry a secret. A
 * record that cannot be written is logged instead, and the answer stands: the change was made.
 */
@ApplicationScoped
class AuditedRequests {

    static final String REQUEST_ID = "X-Request-Id";
    private static final Logger LOG = Logger.getLogger(AuditedRequests.class);
    private static final Pattern GIVEN_ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");
    /** Submissions are not recorded: a task keeps the key that submitted it (owner), and they are the data path. */
    private static final Set<String> SUBMISSIONS = Set.of("submitTask", "submitTasks");
    private static final String ID_PROPERTY = "taskfence.request-id";

    private final AuditLog log;
    private final CurrentIdentityAssociation identities;

    AuditedRequests(AuditLog log, CurrentIdentityAssociation identities) {
        this.log = log;
        this.identities = identities;
    }

    /** Before every other filter: an answer another one makes (a cross-site 403) carries the id too. */
    @ServerRequestFilter(preMatching = true, priority = Priorities.AUTHENTICATION - 100)
    void identify(ContainerRequestContext request) {
        String given = request.getHeaderString(REQUEST_ID);
        // A made id needs to be unique, not unguessable: no SecureRandom on every request.
        ThreadLocalRandom random = ThreadLocalRandom.current();
        request.setProperty(ID_PROPERTY, given != null && GIVEN_ID.matcher(given).matches() ? given
                : new UUID(random.nextLong(), random.nextLong()).toString());
    }

    /**
     * Answers the request's id; records a change an admin key asked for before the answer goes out. The identity is
     * taken deferred: on an event loop (a request refused before its method ran, a single submission) it may not be
     * resolved by blocking.
     */
    @ServerResponseFilter
    Uni<Void> record(ContainerRequestContext request, ContainerResponseContext response, ResourceInfo resource) {
        Object id = request.getProperty(ID_PROPERTY);
        if (id == null) {
            return Uni.createFrom().voidItem(); // not through the API's filters (a static file)
        }
        response.getHeaders().putSingle(REQUEST_ID, id);
        if (READS.contains(request.getMethod()) || !request.getUriInfo().getPath().startsWith("/api/")) {
            return Uni.createFrom().voidItem();
        }
        String operation = operation(resource);
        // Not recorded: no operation matched (nothing could change), a submission, a request the key's rate refused.
        if (operation == null || SUBMISSIONS.contains(operation) || response.getStatus() == 429) {
            return Uni.createFrom().voidItem();
        }
        Object location = response.getHeaders().getFirst("Location");
        // The path as sent, percent-encoded: a decoded one may hold what a text column or a log line may not (NUL).
        String path = request.getUriInfo().getRequestUri().getRawPath();
        return identities.getDeferredIdentity().onItem().transformToUni(identity -> {
            KeyOwner owner = KeyOwner.of(identity);
            if (identity.isAnonymous() || !owner.admin() || owner.name() == null) {
                return Uni.createFrom().voidItem();
            }
            AuditEntry entry = AuditEntry.of(owner.name(), id.toString(), operation, request.getMethod(), path,
                    response.getStatus(), location == null ? null : location.toString());
            if (BlockingOperationControl.isBlockingAllowed()) {
                write(entry);
                return Uni.createFrom().voidItem();
            }
            // An event loop may not wait on JDBC.
            return Uni.createFrom().voidItem().emitOn(Infrastructure.getDefaultWorkerPool()).invoke(() -> write(entry));
        }).onFailure(AuthenticationFailedException.class).recoverWithNull() // no key to record
                // Whatever else went wrong, the change was made: its answer stands.
                .onFailure().invoke(failure -> LOG.warnf("request %s was not audited: %s", id, failure.toString()))
                .onFailure().recoverWithNull().replaceWithVoid();
    }

    private void write(AuditEntry entry) {
        try {
            log.record(entry);
        } catch (RuntimeException e) {
            LOG.warnf("the audit log could not record request %s (%s by %s, answered %d): %s", entry.requestId(),
                    entry.operation(), entry.key(), entry.status(), e.getMessage());
        }
    }

    private static String operation(ResourceInfo resource) {
        if (resource == null || resource.getResourceMethod() == null) {
            return null; // no operation matched (a 404 or 405, or a refusal before matching)
        }
        Operation operation = resource.getResourceMethod().getAnnotation(Operation.class);
        return operation != null && !operation.operationId().isEmpty() ? operation.operationId()
                : resource.getResourceMethod().getName();
    }
}

package io.taskfence.api;

import java.util.LinkedHashMap;
import java.util.Map;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;

import io.quarkus.smallrye.openapi.OpenApiFilter;
import io.taskfence.api.problem.Problem;

/**
 * Describes every error answer of the OpenAPI document with the problem schema (DESIGN.md, "REST API"), so that
 * generated clients know them: those any call may give, those of a call with a body, and each operation's own (by
 * its {@code operationId}), as the REST API's table lists them. Run when the document is built.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public final class ProblemAnswers implements OASFilter {

    /** What any call may answer (authentication, roles, cross-site, the key's rate, the servers). */
    private static final Map<String, String> ANY_CALL = Map.of(
            "401", "no API key, or one that is not known",
            "403", "the key's role may not do this, or the request came from another site's page",
            "429", "the key's request rate is spent: Retry-After says in how many seconds to try again",
            "503", "PostgreSQL or Redis could not be reached; nothing was changed");

    /** What a call with a JSON body may answer besides. */
    private static final Map<String, String> WITH_A_BODY = Map.of(
            "400", "the body is not valid JSON of the expected shape, or fails a check; `field` or `violations` "
                    + "name what",
            "413", "the body, or the task's payload, is over its limit",
            "415", "the body is not application/json in UTF-8");

    /** What a call naming a claim may answer. */
    private static final Map<String, String> CLAIM_ANSWERS = Map.of(
            "404", "no such claim of this key",
            "409", "the claim no longer holds its task (cancelled, finished, or recovered after its lease ran out): "
                    + "nothing was written, the worker should stop");

    private static final String BULK_ACTION_CAP = "the key's request rate is spent, or it has as many bulk actions "
            + "running as it may (taskfence.actions.max-running-per-key): nothing was started; Retry-After says in how "
            + "many seconds to try again";

    /** What a search or a count may answer besides (DESIGN.md, "REST API", "Bulkheads"). */
    private static final String READ_TOO_BROAD = "the read ran longer than taskfence.api.read-timeout and was stopped: "
            + "narrow the filter (createdAfter and createdBefore, type, status) and ask again";
    private static final String SEARCHES_PER_KEY = "the key's request rate is spent, or it has "
            + "taskfence.api.searches-per-key searches and counts under way on this replica (Retry-After)";
    private static final String LONG_POLLS_PER_KEY = "the key's request rate is spent, or, with a wait, it has "
            + "taskfence.api.long-polls-per-key waiting requests on this replica (Retry-After)";
    private static final String CLAIM_WAITS_PER_KEY = "the key's request rate is spent, or, with a wait, it has "
            + "taskfence.api.claim-waits-per-key claims waiting on this replica (Retry-After)";

    private static final String KEY_NOT_FOUND = "no key of that name, or it was revoked";
    private static final Map<String, String> KEY_CHANGES = Map.of(
            "403", "the key has (or would have) more than the calling key; the detail says what",
            "404", KEY_NOT_FOUND,
            "409", "a configured key, which only the configuration and a restart change; or authentication is off");
    private static final String AUTHENTICATION_OFF = "authentication is off: there are no keys to manage";
    /** Each operation's own error answers. */
    private static final Map<String, Map<String, String>> OWN = Map.ofEntries(
            Map.entry("submitTask", Map.of(
                    "422", "the type has no handler, its handler refuses the payload, or the Idempotency-Key was used "
                            + "for another request",
                    "429", "the key's request rate is spent (Retry-After), or its quota of unfinished tasks is")),
            Map.entry("submitTasks", Map.of(
                    "409", "batchId names a closed batch; nothing was stored",
                    "422", "batchId names no batch of this key, or the then task's idempotencyKey made another task; "
                            + "nothing was stored",
                    "429", "the key's request rate is spent (Retry-After), or the tasks to store would take it past "
                            + "its quota; nothing was stored")),
            Map.entry("countTasks", Map.of("400", "a query parameter is not valid; `violations` name it",
                    "422", READ_TOO_BROAD, "429", SEARCHES_PER_KEY)),
            Map.entry("cancelMatching", Map.of("429", BULK_ACTION_CAP)),
            Map.entry("retryMatching", Map.of("429", BULK_ACTION_CAP)),
            Map.entry("getBulkAction", Map.of("404", "no such bulk action, or another key's")),
            Map.entry("listBatches", Map.of("400", "limit is not a whole number from 1 to 100; `violations` name it")),
            Map.entry("getBatch", Map.of("404", "no such batch, or another key's")),
            Map.entry("closeBatch", Map.of("404", "no such batch, or another key's")),
            Map.entry("getTask", Map.of(
                    "400", "wait is not a duration of at most 60s, or progressAfter no instant or without wait; "
                            + "`violations` name it",
                    "404", "no such task, or another key's",
                    "429", LONG_POLLS_PER_KEY)),
            Map.entry("getTaskEvents", Map.of("404", "no such task, or another key's")),
            Map.entry("listTasks", Map.of("400", "a query parameter is not valid; `violations` name it",
                    "422", READ_TOO_BROAD, "429", SEARCHES_PER_KEY.replace("searches and counts under way",
                            "searches and counts under way (a listing with text or error is one)"))),
            Map.entry("cancelTask", Map.of(
                    "404", "no such task, or another key's",
                    "409", "the task has ended (SUCCEEDED, DEAD or CANCELLED)")),
            Map.entry("retryTask", Map.of(
                    "404", "no such task, or another key's",
                    "409", "the task is not DEAD or CANCELLED",
                    "429", "the key's request rate is spent (Retry-After), or its quota of unfinished tasks is")),
            Map.entry("pauseType", Map.of("404", "no handler for the type; the detail lists the types")),
            Map.entry("resumeType", Map.of("404", "no handler for the type; the detail lists the types")),
            Map.entry("declareType", Map.of(
                    "422", "the name is no type name, a handler here runs the type, it is remote by the configuration, "
                            + "or the schema cannot be used")),
            Map.entry("undeclareType", Map.of(
                    "404", "no remote type of that name was declared through the API",
                    "409", "tasks of the type wait or run, a schedule names it, or it is remote by the configuration")),
            Map.entry("createSchedule", Map.of(
                    "409", "a schedule of that name exists",
                    "422", "the cron fires no more, or the type or payload is refused as a submission's")),
            Map.entry("getSchedule", Map.of("404", "no schedule of that name")),
            Map.entry("changeSchedule", Map.of(
                    "404", "no schedule of that name",
                    "409", "it changed five times while this change was made; try again",
                    "422", "the cron fires no more, or the type or payload is refused as a submission's")),
            Map.entry("deleteSchedule", Map.of("404", "no schedule of that name")),
            Map.entry("claimTasks", Map.of(
                    "403", "the key is no worker key, or does not name one of the types",
                    "422", "a type is not a remote type; the detail lists them",
                    "429", CLAIM_WAITS_PER_KEY)),
            Map.entry("heartbeatClaim", CLAIM_ANSWERS),
            Map.entry("completeClaim", Map.of(
                    "404", CLAIM_ANSWERS.get("404"),
                    "409", CLAIM_ANSWERS.get("409"),
                    "422", "the result cannot be stored (what a payload may not hold); the claim still holds")),
            Map.entry("reportClaimProgress", Map.of(
                    "404", CLAIM_ANSWERS.get("404"),
                    "409", CLAIM_ANSWERS.get("409"),
                    "413", "the progress is over 4 KiB of JSON; nothing was kept",
                    "422", "the progress cannot be stored (what a payload may not hold); nothing was kept")),
            Map.entry("failClaim", CLAIM_ANSWERS),
            Map.entry("releaseClaim", CLAIM_ANSWERS),
            Map.entry("createKey", Map.of(
                    "403", "the key would grant more than the calling key has; the detail says what",
                    "409", "the name is a configured key's, a key has or had it, or it owns tasks; 1,000 keys were made "
                            + "already; or authentication is off")),
            Map.entry("listKeys", Map.of("409", AUTHENTICATION_OFF)),
            Map.entry("getKey", Map.of("404", KEY_NOT_FOUND, "409", AUTHENTICATION_OFF)),
            Map.entry("changeKey", KEY_CHANGES),
            Map.entry("rotateKey", KEY_CHANGES),
            Map.entry("revokeKey", KEY_CHANGES));

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getComponents().getSchemas() == null || !openAPI.getComponents().getSchemas().containsKey("Problem")) {
            throw new IllegalStateException("the OpenAPI scan found no Problem schema (the @Schema on Problem names it)");
        }
        openAPI.getPaths().getPathItems().values().forEach(path -> path.getOperations().values().forEach(operation -> {
            Map<String, String> answers = new LinkedHashMap<>(ANY_CALL);
            if (operation.getRequestBody() != null) {
                answers.putAll(WITH_A_BODY);
            }
            if (operation.getOperationId() != null) {
                answers.putAll(OWN.getOrDefault(operation.getOperationId(), Map.of()));
            }
            answers.forEach((status, description) -> describe(operation, status, description));
        }));
    }

    private static void describe(Operation operation, String status, String description) {
        operation.getResponses().addAPIResponse(status, OASFactory.createAPIResponse().description(description)
                .content(OASFactory.createContent().addMediaType(Problem.MEDIA_TYPE, OASFactory.createMediaType()
                        .schema(OASFactory.createSchema().ref("#/components/schemas/Problem")))));
    }
}

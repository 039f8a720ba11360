package io.taskfence.api;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import jakarta.inject.Singleton;
import jakarta.ws.rs.core.Response.Status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySettings;
import io.taskfence.types.PayloadSchemas;
import io.taskfence.types.TaskTypes;
import io.taskfence.task.StorableJson;
import io.taskfence.task.submit.NewTask;

/**
 * The checks of a task to be stored that a submission (api.tasks.NewTasks, for the single submit and each task of a
 * batch alike) and a schedule share (DESIGN.md, "REST API", "Submission"): the type's name, the type and payload,
 * the priority the owner may ask for, and the instants a task may name. A refusal is a {@link ProblemException}
 * carrying the problem to answer with.
 */
@Singleton
public final class SubmissionChecks {

    /** The rule for a task type's name, wherever one is sent (a task, a schedule, a claim, a filter). */
    public static final String TYPE = "[a-z0-9][a-z0-9._-]{0,63}";
    public static final String TYPE_RULE = "must match " + TYPE;
    /** The rule for a dedupe key, a submission's and a schedule's alike: a schedule's tasks share keys with submissions. */
    public static final String DEDUPE_KEY = "[\\x21-\\x7e]{1,200}";
    public static final String DEDUPE_KEY_RULE = "must be 1 to 200 visible ASCII characters";
    /** The rule for a task's {@code timeout} and a schedule's ({@link Delay#PATTERN}); {@link #timeout} refuses zero. */
    public static final String TIMEOUT_RULE = "must be a number of seconds or milliseconds, e.g. 30s or 500ms";
    /*
     * The instants runAt and deadline may name, inclusive. PostgreSQL refuses a year over 9999 as the batch
     * writes it (Instant's "+10000-...") and any year past 294276; before 1582-10-15 the JDBC Timestamp
     * shifts the date (Julian calendar). Nothing a task runs by lies outside these, so refuse with a 400
     * instead of failing the insert with a 503 or storing another instant.
     */
    public static final Instant EARLIEST = Instant.EPOCH;
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    private final TaskHandlers handlers;
    private final TaskTypes types;
    private final PayloadSchemas schemas;
    private final KeyDirectory keys;

    SubmissionChecks(TaskHandlers handlers, TaskTypes types, PayloadSchemas schemas, KeyDirectory keys) {
        this.handlers = handlers;
        this.schemas = schemas;
        this.types = types;
        this.keys = keys;
    }

    /** A priority within {@code owner}'s {@code max-priority}, for a submission and a schedule alike. */
    public void priorityAllowed(int priority, String owner) {
        OptionalInt maxPriority = keys.limitsOf(owner).map(KeySettings::maxPriority).orElse(OptionalInt.empty());
        if (maxPriority.isPresent() && priority > maxPriority.getAsInt()) {
            throw Problems.about("priority", Status.BAD_REQUEST, "priority must be at most " + maxPriority.getAsInt()
                    + " for API key '" + owner + "' (its max-priority), not " + priority);
        }
    }

    /** A JSON value's kind in the API's words (Jackson's node types are Java names: STRING, ARRAY). */
    private static String jsonKind(JsonNode value) {
        return switch (value.getNodeType()) {
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "true or false";
            case NULL -> "null";
            default -> "a value of another kind";
        };
    }

    /**
     * Whether {@link #typeAndPayload} can check a task of {@code type} from memory alone, without waiting for
     * PostgreSQL (a type this replica has not seen is looked up there): what lets a submission be checked on an event loop.
     */
    public boolean checkableFromMemory(String type) {
        return type != null && types.knownHere(type);
    }

    /**
     * The checks of a task's type and payload, for a submission and a schedule alike: the payload is an object
     * PostgreSQL can store as sent, of 64 KiB at most, the type has a handler, and the handler can run it for
     * {@code owner} (an API key's name; null for none).
     */
    public void typeAndPayload(String type, JsonNode payload, String owner) {
        if (!payload.isObject()) {
            throw Problems.about("payload", Status.BAD_REQUEST, "payload must be a JSON object, not "
                    + jsonKind(payload));
        }
        // What PostgreSQL would refuse (a 503 before, and the whole batch) or store as something else.
        StorableJson.firstProblem(payload, "payload").ifPresent(problem -> {
            throw Problems.about("payload", Status.BAD_REQUEST, "payload must not contain " + problem);
        });
        int payloadBytes = payload.toString().getBytes(StandardCharsets.UTF_8).length;
        if (payloadBytes > NewTask.MAX_PAYLOAD_BYTES) {
            throw Problems.about("payload", Status.REQUEST_ENTITY_TOO_LARGE,
                    "payload is " + payloadBytes + " bytes of JSON; at most " + NewTask.MAX_PAYLOAD_BYTES + " are accepted");
        }
        if (!types.registered(type)) {
            throw Problems.unprocessable("type", "no handler for task type '" + type + "'; registered types: "
                    + types.names());
        }
        // A payload its handler can never run would only become a DEAD task later; say so now instead. A remote
        // type's workers check their own.
        List<String> problems = new ArrayList<>(handlers.forType(type)
                .map(handler -> handler.payloadProblems((ObjectNode) payload, owner)).orElse(List.of()));
        problems.addAll(schemas.problems(type, (ObjectNode) payload));
        if (!problems.isEmpty()) {
            throw Problems.unprocessable("payload", "payload of a '" + type + "' task: " + String.join("; ", problems));
        }
    }

    /** The attempt time-out {@code text} names (null for none): text that passed {@link #TIMEOUT_RULE}, not zero. */
    public static Duration timeout(String text) {
        if (text == null) {
            return null;
        }
        Duration timeout = Delay.parse(text).orElseThrow();
        if (timeout.isZero()) {
            throw Problems.about("timeout", Status.BAD_REQUEST, "timeout must be at least 1ms");
        }
        return timeout;
    }

    /** An instant a task may name ({@link #EARLIEST} to {@link #LATEST}), {@code field} naming it in the refusal. */
    public static void inRange(String field, Instant value) {
        if (value != null && (value.isBefore(EARLIEST) || value.isAfter(LATEST))) {
            throw Problems.about(field, Status.BAD_REQUEST, field + " must be between " + EARLIEST + " and " + LATEST + ", not "
                    + value);
        }
    }
}

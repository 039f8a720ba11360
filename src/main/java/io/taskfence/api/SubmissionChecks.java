package io.taskfence.api;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.inject.Singleton;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import jakarta.ws.rs.core.Response.Status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.TaskfenceConfig;
import io.taskfence.task.NewTask;
import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskHandlers;

/**
 * The checks a submission passes before it is stored (DESIGN section 5, "Submission"), in their order, for
 * the single submit and each task of a batch alike, so that the two cannot answer one task differently.
 * A refusal is a {@link ProblemException} carrying the problem to answer with.
 */
@Singleton
final class SubmissionChecks {

    static final int MAX_PAYLOAD_BYTES = 64 * 1024;
    /** The rule for the {@code Idempotency-Key} header and a batch task's {@code idempotencyKey}. */
    static final String IDEMPOTENCY_KEY = "[\\x21-\\x7e]{1,200}";
    static final String IDEMPOTENCY_KEY_RULE = "must be 1 to 200 visible ASCII characters";
    static final String NOT_A_TASK = "a JSON object with at least type and payload";
    /*
     * The instants runAt and deadline may name, inclusive. PostgreSQL refuses a year over 9999 as the batch
     * writes it (Instant's "+10000-...") and any year past 294276; before 1582-10-15 the JDBC Timestamp
     * shifts the date (Julian calendar). Nothing a task runs by lies outside these, so refuse with a 400
     * instead of failing the insert with a 503 or storing another instant.
     */
    static final Instant EARLIEST = Instant.EPOCH;
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    private final TaskHandlers handlers;
    private final TaskfenceConfig config;
    private final Validator validator;

    SubmissionChecks(TaskHandlers handlers, TaskfenceConfig config, Validator validator) {
        this.handlers = handlers;
        this.config = config;
        this.validator = validator;
    }

    /**
     * A batch's task at {@code index}: first the Bean Validation that JAX-RS runs on a single submission's
     * body and header (here per task, so that one bad task does not refuse the others), then
     * {@link #newTask}. Violations name the field by its path in the batch, e.g. {@code tasks[3].priority}.
     */
    NewTask newTask(int index, BatchTask item) {
        String at = "tasks[" + index + "]";
        if (item == null) {
            throw new ProblemException(Problem.invalid(List.of(new Problem.Violation(at, "body", NOT_A_TASK))));
        }
        List<Problem.Violation> violations = new ArrayList<>();
        for (ConstraintViolation<BatchTask> violation : validator.validate(item)) {
            violations.add(new Problem.Violation(at + "." + violation.getPropertyPath(), "body", violation.getMessage()));
        }
        if (!violations.isEmpty()) {
            violations.sort(Comparator.comparing(Problem.Violation::field));
            throw new ProblemException(Problem.invalid(violations));
        }
        return newTask(item.task(), item.idempotencyKey());
    }

    /** The checks after Bean Validation: the payload, the type's handler, the times; the task to store. */
    NewTask newTask(SubmitRequest body, String idempotencyKey) {
        if (!body.payload().isObject()) {
            throw Problems.of(Status.BAD_REQUEST, "payload must be a JSON object, not " + body.payload().getNodeType());
        }
        // jsonb cannot hold U+0000; PostgreSQL would refuse the insert (a 503, and the whole batch).
        nulAt(body.payload(), "payload").ifPresent(at -> {
            throw Problems.of(Status.BAD_REQUEST, "payload must not contain the character U+0000 (" + at + ")");
        });
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
        inRange("runAt", body.runAt());
        inRange("deadline", body.deadline());
        if (body.deadline() != null && body.runAt() != null && !body.deadline().isAfter(body.runAt())) {
            throw Problems.of(Status.BAD_REQUEST, "deadline must be after runAt");
        }
        return new NewTask(body.type(), (ObjectNode) body.payload(),
                Optional.ofNullable(body.maxAttempts()).orElse(config.retry().maxAttempts()),
                Optional.ofNullable(body.priority()).orElse(0), body.runAt(), body.deadline(), idempotencyKey);
    }

    private static void inRange(String field, Instant value) {
        if (value != null && (value.isBefore(EARLIEST) || value.isAfter(LATEST))) {
            throw Problems.of(Status.BAD_REQUEST, field + " must be between " + EARLIEST + " and " + LATEST + ", not "
                    + value);
        }
    }

    /** Where the first U+0000 in a string or an object key under {@code value} is, e.g. "at payload.a[2]". */
    private static Optional<String> nulAt(JsonNode value, String path) {
        if (value.isTextual()) {
            return value.textValue().indexOf('\0') >= 0 ? Optional.of("at " + path) : Optional.empty();
        }
        if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                Optional<String> found = nulAt(value.get(i), path + "[" + i + "]");
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                if (field.getKey().indexOf('\0') >= 0) {
                    return Optional.of("in a key of " + path);
                }
                Optional<String> found = nulAt(field.getValue(), path + "." + field.getKey());
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }
}

package io.taskfence.api.tasks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import jakarta.inject.Singleton;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import jakarta.ws.rs.core.Response.Status;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.taskfence.TaskfenceConfig;
import io.taskfence.api.Delay;
import io.taskfence.api.SubmissionChecks;
import io.taskfence.api.problem.Problem;
import io.taskfence.api.problem.ProblemException;
import io.taskfence.api.problem.Problems;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.task.Task;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.submit.GroupedSubmissions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.tracing.TaskTraces;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * A submission's request made into the task to store (DESIGN.md, "REST API", "Submission"): its checks, in their
 * order ({@link SubmissionChecks} for those a schedule shares), for the single submit and each task of a batch alike,
 * so that the two cannot answer one task differently. A refusal is a {@link ProblemException} carrying the problem
 * to answer with.
 */
@Singleton
final class NewTasks {

    /** The rule for the {@code Idempotency-Key} header and a batch task's {@code idempotencyKey}. */
    static final String IDEMPOTENCY_KEY = "[\\x21-\\x7e]{1,200}";
    static final String IDEMPOTENCY_KEY_RULE = "must be 1 to 200 visible ASCII characters";
    /** The rule for a task's {@code concurrencyKey}. */
    static final String CONCURRENCY_KEY = IDEMPOTENCY_KEY;
    static final String CONCURRENCY_KEY_RULE = IDEMPOTENCY_KEY_RULE;
    /** The rule for a dedupe's {@code period} and {@code maxWait}; {@link #dedupe} bounds them. */
    static final String SPAN_RULE = "must be a number of milliseconds, seconds, minutes or hours, e.g. 500ms, 5s, 1m, 2h";
    /** The longest a dedupe's period or maxWait may be. */
    static final Duration LONGEST_SPAN = Duration.ofHours(24);
    static final String NOT_A_TASK = "a JSON object with at least type and payload";

    private final SubmissionChecks checks;
    private final TaskHandlers handlers;
    private final TaskfenceConfig config;
    private final Validator validator;
    private final TaskTraces traces;
    private final GroupedSubmissions grouped;

    NewTasks(SubmissionChecks checks, TaskHandlers handlers, TaskfenceConfig config, Validator validator,
            TaskTraces traces, GroupedSubmissions grouped) {
        this.checks = checks;
        this.grouped = grouped;
        this.traces = traces;
        this.handlers = handlers;
        this.config = config;
        this.validator = validator;
    }

    /**
     * A batch's task at {@code index}: first the Bean Validation that JAX-RS runs on a single submission's
     * body and header (here per task, so that one bad task does not refuse the others), then
     * {@link #newTask}. Violations name the field by its path in the batch, e.g. {@code tasks[3].priority}.
     */
    NewTask newTask(int index, BulkTask item, String owner) {
        return newTask("tasks[" + index + "]", item, owner);
    }

    /**
     * A batch's then task (DESIGN.md, "Batches"): checked as a task of the batch is, at {@code then}; it waits for the
     * batch alone, and its payload leaves the member {@code batch} to the outcome Taskfence adds.
     */
    NewTask thenTask(BulkTask then, String owner) {
        NewTask task = newTask("then", then, owner);
        if (then.dependsOn() != null || then.dependsOnItems() != null || then.onDependencyFailure() != null) {
            throw Problems.about("then", Status.BAD_REQUEST, "a then task waits for its batch's tasks alone: it may "
                    + "not name dependsOn, dependsOnItems or onDependencyFailure");
        }
        if (then.dedupe() != null) {
            throw Problems.about("then.dedupe", Status.BAD_REQUEST, "a then task is its batch's own: it may not have a "
                    + "dedupe key");
        }
        if (then.payload().has("batch")) {
            throw Problems.about("then.payload", Status.BAD_REQUEST, "a then task's payload may not have a member "
                    + "'batch': Taskfence puts the batch's outcome there when it releases the task");
        }
        return task;
    }

    private NewTask newTask(String at, BulkTask item, String owner) {
        if (item == null) {
            throw new ProblemException(Problem.invalid(List.of(new Problem.Violation(at, "body", NOT_A_TASK))));
        }
        List<Problem.Violation> violations = new ArrayList<>();
        for (ConstraintViolation<BulkTask> violation : validator.validate(item)) {
            violations.add(new Problem.Violation(at + "." + violation.getPropertyPath(), "body", violation.getMessage()));
        }
        if (!violations.isEmpty()) {
            violations.sort(Comparator.comparing(Problem.Violation::field));
            throw new ProblemException(Problem.invalid(violations));
        }
        if (item.dedupe() != null && item.dependsOnItems() != null) {
            throw Problems.about(at + ".dedupe", Status.BAD_REQUEST, "a task with a dedupe key may not wait for "
                    + "other tasks (dependsOnItems): the task its key holds waits for what it waited for");
        }
        try {
            return newTask(item.task(), item.idempotencyKey(), owner);
        } catch (ProblemException refused) {
            Problem problem = refused.problem();
            throw problem.field() == null ? refused : new ProblemException(problem.withField(at + "." + problem.field()));
        }
    }

    /**
     * A single submission checked ({@link #newTask(SubmitRequest, String, String)}) and stored in the next group's
     * commit, with no thread waiting meanwhile: checked on the request's event loop when that needs nothing but
     * memory, else on a worker (a type this replica has not seen is looked up in PostgreSQL); answered on the
     * request's event loop once committed, not on the group's writer, which every submission waits for.
     */
    Uni<Submission> stored(SubmitRequest body, String idempotencyKey, String owner) {
        Context request = Vertx.currentContext();
        String traceParent = traces.current(); // the request's: a worker thread would not see it
        Uni<NewTask> task = checks.checkableFromMemory(body.type())
                ? Uni.createFrom().item(newTask(body, idempotencyKey, owner, traceParent))
                : Uni.createFrom().item(() -> newTask(body, idempotencyKey, owner, traceParent))
                        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
        Uni<Submission> stored = task.chain(checked -> Uni.createFrom().completionStage(grouped.submitLater(checked)));
        return request == null ? stored : stored.emitOn(answer -> request.runOnContext(ignored -> answer.run()));
    }

    /**
     * The checks after Bean Validation: the payload, the type's handler, the times, the priority the owner may ask
     * for; the task to store, owned by {@code owner} (the key's name, null without authentication) and carrying the
     * request's trace context. A refusal names the field to blame in its {@code field}.
     */
    NewTask newTask(SubmitRequest body, String idempotencyKey, String owner) {
        return newTask(body, idempotencyKey, owner, traces.current());
    }

    private NewTask newTask(SubmitRequest body, String idempotencyKey, String owner, String traceParent) {
        checks.typeAndPayload(body.type(), body.payload(), owner);
        int priority = Optional.ofNullable(body.priority()).orElse(0);
        checks.priorityAllowed(priority, owner);
        SubmissionChecks.inRange("runAt", body.runAt());
        SubmissionChecks.inRange("deadline", body.deadline());
        if (body.deadline() != null && body.runAt() != null && !body.deadline().isAfter(body.runAt())) {
            throw Problems.about("deadline", Status.BAD_REQUEST, "deadline must be after runAt");
        }
        Duration timeout = SubmissionChecks.timeout(body.timeout());
        return new NewTask(body.type(), (ObjectNode) body.payload(),
                Optional.ofNullable(body.maxAttempts()).orElse(config.retry().maxAttempts()),
                priority, body.runAt(), body.deadline(), idempotencyKey).ownedBy(owner).inGroup(body.concurrencyKey())
                .tracedBy(traceParent)
                .waitingFor(body.dependsOn() == null ? NewTask.Dependencies.NONE
                        : new NewTask.Dependencies(body.dependsOn(), "run".equals(body.onDependencyFailure())))
                .callingBack(callback(body.callback(), owner)).timingOutAfter(timeout)
                .deduplicatedBy(dedupe(body, idempotencyKey));
    }

    /** The submission's dedupe, checked against what it may not be sent with; null for none. */
    private static NewTask.Dedupe dedupe(SubmitRequest body, String idempotencyKey) {
        SubmitRequest.Dedupe dedupe = body.dedupe();
        if (dedupe == null) {
            return null;
        }
        if (idempotencyKey != null) {
            throw Problems.about("dedupe", Status.BAD_REQUEST, "dedupe and an idempotency key do not go together: "
                    + "the key answers the task it made, while a dedupe key's task changes with each submission; a "
                    + "dedupe submission sent again answers the same unstarted task");
        }
        if (body.dependsOn() != null || body.onDependencyFailure() != null) {
            throw Problems.about("dedupe", Status.BAD_REQUEST, "a task with a dedupe key may not wait for other tasks "
                    + "(dependsOn, onDependencyFailure): the task its key holds waits for what it waited for");
        }
        NewTask.Dedupe.Mode mode = NewTask.Dedupe.Mode.valueOf(dedupe.mode().toUpperCase(Locale.ROOT));
        Duration period = span("dedupe.period", dedupe.period());
        Duration maxWait = span("dedupe.maxWait", dedupe.maxWait());
        if (mode == NewTask.Dedupe.Mode.DEBOUNCE && maxWait == null) {
            // No stream of debounces holds a task back for ever, nor grows its history without end.
            maxWait = LONGEST_SPAN;
        }
        if (mode != NewTask.Dedupe.Mode.DEBOUNCE && (period != null || dedupe.maxWait() != null)) {
            throw Problems.about(period != null ? "dedupe.period" : "dedupe.maxWait", Status.BAD_REQUEST,
                    "period and maxWait are a debounce's: mode " + dedupe.mode() + " takes neither");
        }
        if (mode == NewTask.Dedupe.Mode.DEBOUNCE) {
            if (period == null) {
                throw Problems.about("dedupe.period", Status.BAD_REQUEST, "a debounce needs a period: how long after "
                        + "the last submission the task runs, e.g. 5s");
            }
            if (body.runAt() != null) {
                throw Problems.about("runAt", Status.BAD_REQUEST, "a debounce sets the task's runAt (now + period): "
                        + "send no runAt with it");
            }
            if (maxWait != null && maxWait.compareTo(period) < 0) {
                throw Problems.about("dedupe.maxWait", Status.BAD_REQUEST, "maxWait (" + dedupe.maxWait()
                        + ") must be at least period (" + dedupe.period() + ")");
            }
        }
        return new NewTask.Dedupe(dedupe.key(), mode, period, maxWait);
    }

    /** A dedupe's span: more than 0, at most {@link #LONGEST_SPAN}; null when absent. */
    private static Duration span(String field, String text) {
        if (text == null) {
            return null;
        }
        Duration span = Delay.parseSpan(text).orElseThrow();
        if (span.isZero() || span.compareTo(LONGEST_SPAN) > 0) {
            throw Problems.about(field, Status.BAD_REQUEST, field + " must be more than 0 and at most 24h, not " + text);
        }
        return span;
    }

    /** Whether a task answered is PENDING and due: one a dedupe's replace made due wakes dispatch as a new one does. */
    static boolean dueNow(Task task) {
        return task.status() == TaskStatus.PENDING && task.runAt() != null && !task.runAt().isAfter(Instant.now());
    }

    /** A callback whose URL the {@code callback} handler can call for {@code owner}: the {@code http} handler's rules. */
    private NewTask.Callback callback(CallbackRequest callback, String owner) {
        if (callback == null) {
            return null;
        }
        // The callback task POSTs through the http handler: its rules for a URL are the callback's.
        List<String> problems = handlers.forType("http").orElseThrow()
                .payloadProblems(JsonNodeFactory.instance.objectNode().put("url", callback.url()), owner);
        if (!problems.isEmpty()) {
            throw Problems.unprocessable("callback.url", "callback: " + String.join("; ", problems)
                    .replace("payload.url", "callback.url"));
        }
        return new NewTask.Callback(callback.url(),
                Optional.ofNullable(callback.maxAttempts()).orElse(config.retry().maxAttempts()));
    }
}

package io.taskfence.task.submit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.task.StorableJson;

/**
 * A validated submission. {@code runAt} null means now (the database's now); {@code idempotencyKey}
 * null means every submission makes a new task. {@code owner} is the submitting API key's name, null when
 * authentication is off; idempotency keys are scoped to it. {@code concurrencyKey} names the task's concurrency
 * group within its type and owner (DESIGN.md, "Dispatch", "Concurrency groups"); null for none. {@code traceParent}
 * is the submitting request's W3C {@code traceparent}, which the task's spans continue (DESIGN.md, "Tracing"); null
 * for none. {@code dependencies} are the tasks it waits for ({@link Dependencies#NONE}: none); {@code callback} where it
 * is reported when it ends (null: nowhere). {@code timeout} is the time-out it asks for its attempts (null: none); the
 * insert caps it at its type's (DESIGN.md, "Task lifecycle", "Attempt time-outs"). {@code dedupe} names the unstarted
 * task of the same owner and type this submission answers instead of making one (DESIGN.md, "Submission", "Dedupe");
 * null for none.
 */
public record NewTask(String type, ObjectNode payload, int maxAttempts, int priority, Instant runAt,
        Instant deadline, String idempotencyKey, String owner, String concurrencyKey, String traceParent,
        Dependencies dependencies, Callback callback, Duration timeout, Dedupe dedupe) {

    /**
     * A dedupe key and what a submission with it does to the task the key holds while that task has not started
     * ({@link Dedupes}): {@code IGNORE} answers it, {@code REPLACE} gives it this submission's payload, runAt and
     * priority, {@code DEBOUNCE} gives it this payload and moves its runAt to now + {@code period}, never past the
     * first submission + {@code maxWait} (null: no bound). {@code period} is null but for {@code DEBOUNCE}.
     */
    public record Dedupe(String key, Mode mode, Duration period, Duration maxWait) {

        public enum Mode {
            IGNORE, REPLACE, DEBOUNCE
        }
    }

    /**
     * Where Taskfence POSTs the task's final view each time it ends (DESIGN.md, "Callbacks"), through a task of the
     * built-in type {@code callback} that has {@code maxAttempts} attempts.
     */
    public record Callback(String url, int maxAttempts) {
    }

    /**
     * The tasks this one waits for (DESIGN.md, "Task lifecycle", "Dependencies"): the ids of tasks of the task's owner,
     * the {@code items} of the same submission (their places in the list submitted together), and whether the task
     * runs anyway when one of them ends DEAD or CANCELLED (else it is cancelled).
     */
    public record Dependencies(List<UUID> ids, List<Integer> items, boolean runIfOneFails) {

        public static final Dependencies NONE = new Dependencies(List.of(), List.of(), false);
        /** The most a task may wait for. */
        public static final int MAX = 100;

        public Dependencies {
            ids = List.copyOf(new LinkedHashSet<>(ids));
            items = List.copyOf(new LinkedHashSet<>(items));
        }

        public Dependencies(List<UUID> ids, boolean runIfOneFails) {
            this(ids, List.of(), runIfOneFails);
        }

        /** These dependencies, with the items of the submission that {@code existing} names waited for by their ids. */
        Dependencies withIds(Map<Integer, UUID> existing) {
            List<UUID> allIds = new ArrayList<>(ids);
            items.stream().filter(existing::containsKey).map(existing::get).forEach(allIds::add);
            return new Dependencies(allIds, items.stream().filter(item -> !existing.containsKey(item)).toList(),
                    runIfOneFails);
        }

        public boolean any() {
            return !ids.isEmpty() || !items.isEmpty();
        }
    }

    /** The largest payload a task may carry, as JSON text in UTF-8. */
    public static final int MAX_PAYLOAD_BYTES = StorableJson.MAX_BYTES;

    /** A task without an owner. */
    public NewTask(String type, ObjectNode payload, int maxAttempts, int priority, Instant runAt, Instant deadline,
            String idempotencyKey) {
        this(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, null, null, null, Dependencies.NONE,
                null, null, null);
    }

    /** This task, submitted by the API key named {@code owner}. */
    public NewTask ownedBy(String owner) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task in the concurrency group {@code concurrencyKey} (null: none). */
    public NewTask inGroup(String concurrencyKey) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task, waiting for {@code dependencies}. */
    public NewTask waitingFor(Dependencies dependencies) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task, calling back {@code callback} when it ends (null: none). */
    public NewTask callingBack(Callback callback) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task, continuing the trace {@code traceParent} (null: none). */
    public NewTask tracedBy(String traceParent) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task, its attempts timing out after {@code timeout} (null: none but its type's). */
    public NewTask timingOutAfter(Duration timeout) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task, answered by the unstarted task {@code dedupe}'s key holds, if there is one (null: none). */
    public NewTask deduplicatedBy(Dedupe dedupe) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }

    /** This task, due at {@code runAt} (null: now). */
    NewTask dueAt(Instant runAt) {
        return new NewTask(type, payload, maxAttempts, priority, runAt, deadline, idempotencyKey, owner, concurrencyKey,
                traceParent, dependencies, callback, timeout, dedupe);
    }
}

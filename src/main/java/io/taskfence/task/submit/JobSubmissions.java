package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.submit.outcome.OccurrenceTasks;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.transition.TransitionMeters;
import io.taskfence.types.TypeLimits;

/**
 * The tasks the service's own jobs make, in the job's fenced transaction: a schedule's occurrences and the follow-ups'
 * callback tasks, through the one insert ({@link TaskInserts}).
 */
@ApplicationScoped
public class JobSubmissions {

    /** The built-in type of the tasks that report an end to a callback URL. */
    public static final String CALLBACK_TYPE = "callback";

    private final TaskRows rows;
    private final Quotas quotas;
    private final TaskInserts inserts;
    private final Dedupes dedupes;

    JobSubmissions(TaskRows rows, Quotas quotas, TypeLimits limits) {
        this.rows = rows;
        this.quotas = quotas;
        this.inserts = new TaskInserts(rows, limits);
        this.dedupes = new Dedupes(rows);
    }

    /**
     * Inserts a schedule's occurrences in the caller's (fenced) transaction; an occurrence whose idempotency key
     * is taken already becomes no second task. Held to their owner's quota as single submissions are: those
     * beyond the room its quota leaves are not made (the schedule moves on past them, as past a missed
     * occurrence). The caller counts the tasks made ({@link TransitionMeters#moved}) once its transaction has
     * committed.
     */
    public OccurrenceTasks submitOccurrences(Connection connection, List<NewTask> all) throws SQLException {
        if (!all.isEmpty() && all.getFirst().dedupe() != null) {
            return submitDeduplicated(connection, all);
        }
        // Occurrences made already (an edit moved the schedule back) make nothing: they take no room of the quota.
        List<NewTask> occurrences = all.isEmpty() || quotas.limitFor(all.getFirst().owner()).isEmpty() ? all
                : notMadeYet(connection, all);
        if (occurrences.isEmpty()) {
            return OccurrenceTasks.NONE;
        }
        Submitted[] outcomes = new Submitted[occurrences.size()];
        quotas.refuseOverQuota(connection, occurrences, false, outcomes);
        List<NewTask> within = new ArrayList<>();
        List<Instant> overQuota = new ArrayList<>();
        Optional<OverQuota> quota = Optional.empty();
        for (int i = 0; i < occurrences.size(); i++) {
            if (outcomes[i] instanceof OverQuota refused) {
                overQuota.add(occurrences.get(i).runAt());
                quota = Optional.of(refused);
            } else {
                within.add(occurrences.get(i));
            }
        }
        // A schedule's occurrences share one payload: written once, not once per occurrence (up to 1,000).
        Map<JsonNode, String> written = new IdentityHashMap<>();
        List<Task> made = within.isEmpty() ? List.of() : inserts.insert(connection, within.stream().map(task ->
                TaskInserts.Row.pending(task, written.computeIfAbsent(task.payload(), rows::write))).toList(), null);
        return new OccurrenceTasks(made, List.copyOf(overQuota), quota);
    }

    /**
     * The occurrences of a schedule with a dedupe key (DESIGN.md, "REST API", "Schedules"): they share the key, so at
     * most one task comes of them, under the key's lock as a submission's ({@link Dedupes}). {@code ignore}: the first
     * occurrence, made only if the key holds no unstarted task; {@code replace}: the last, whose runAt, payload and
     * priority a held task takes instead of a task being made.
     */
    private OccurrenceTasks submitDeduplicated(Connection connection, List<NewTask> all) throws SQLException {
        NewTask one = all.getFirst().dedupe().mode() == NewTask.Dedupe.Mode.REPLACE ? all.getLast() : all.getFirst();
        List<NewTask> tasks = List.of(one);
        Dedupes.Keys keys = dedupes.lockKeys(connection, tasks);
        quotas.lockOwners(connection, Collections.singletonList(one.owner()));
        Dedupes.Found found = dedupes.find(connection, tasks, keys);
        Submitted[] outcomes = new Submitted[1];
        List<Task> made = List.of();
        if (!found.answered(0)) {
            quotas.refuseOverQuota(connection, tasks, false, outcomes);
            if (outcomes[0] instanceof OverQuota refused) {
                return new OccurrenceTasks(List.of(), List.of(one.runAt()), Optional.of(refused));
            }
            // None when its idempotency key made a task already (an edit moved the schedule back).
            made = inserts.insert(connection, List.of(TaskInserts.Row.pending(one, rows.write(one.payload()))), null);
            made.forEach(task -> outcomes[0] = new Submission(task, true));
        }
        dedupes.answer(connection, tasks, found, outcomes);
        return new OccurrenceTasks(made, List.of(), Optional.empty());
    }

    /** A callback task to make (DESIGN.md, "Callbacks"): its payload as JSON text ({url, task}), attempts, owner, trace. */
    public record Callback(String payload, int maxAttempts, String owner, String traceParent) {
    }

    /**
     * The follow-ups job's callback tasks, in its (fenced) transaction: not held to their owner's quota (the end they
     * report has happened already), without idempotency keys (the job makes each once: the row that asked for it is
     * gone in the same transaction).
     *
     * @return the moves made, for the caller to count once its transaction has committed
     */
    public List<TransitionMeters.Moved> submitCallbacks(Connection connection, List<Callback> callbacks)
            throws SQLException {
        // The payload is the trigger's JSON text as it is: no task's payload was ever a Java object here.
        List<Task> made = inserts.insert(connection, callbacks.stream().map(callback -> TaskInserts.Row.pending(
                new NewTask(CALLBACK_TYPE, null, callback.maxAttempts(), 0, null, null, null)
                        .ownedBy(callback.owner()).tracedBy(callback.traceParent()), callback.payload())).toList(), null);
        return made.stream().map(task -> new TransitionMeters.Moved(task.status(), task.type())).toList();
    }

    /** The occurrences whose idempotency key no task of their owner (one schedule's: the same) holds yet. */
    private static List<NewTask> notMadeYet(Connection connection, List<NewTask> occurrences) throws SQLException {
        Set<String> made = new HashSet<>();
        try (PreparedStatement select = connection.prepareStatement("select idempotency_key from tasks "
                + "where coalesce(owner, '') = coalesce(?, '') and idempotency_key = any(?)")) {
            select.setString(1, occurrences.getFirst().owner());
            select.setArray(2, connection.createArrayOf("text",
                    occurrences.stream().map(NewTask::idempotencyKey).toArray()));
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    made.add(row.getString(1));
                }
            }
        }
        return occurrences.stream().filter(occurrence -> !made.contains(occurrence.idempotencyKey())).toList();
    }
}

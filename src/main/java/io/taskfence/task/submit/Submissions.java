package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.IntFunction;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

import io.taskfence.store.TaskDatabase;
import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.transition.TransitionMeters;

/**
 * Client → PENDING, or WAITING for the tasks it depends on: the one writer of new task rows, for single and grouped
 * submissions, batches, and the schedules' occurrences. Idempotency keys are per owner; an owner's quota is exact
 * ({@link Quotas}).
 */
@ApplicationScoped
public class Submissions {

    /** The built-in type of the tasks that report an end to a callback URL. */
    public static final String CALLBACK_TYPE = "callback";

    private final TaskDatabase database;
    private final TaskRows rows;
    private final TransitionMeters meters;
    private final Quotas quotas;
    private final BatchMembership batches;
    private final TaskInserts inserts;

    Submissions(TaskDatabase database, TaskRows rows, TransitionMeters meters, Quotas quotas) {
        this.database = database;
        this.rows = rows;
        this.meters = meters;
        this.quotas = quotas;
        this.inserts = new TaskInserts(rows);
        this.batches = new BatchMembership(rows, inserts);
    }

    /**
     * Client → PENDING for many tasks in one transaction: first each owner's quota (exact: under the owner's
     * advisory lock, see {@link Quotas}), then one multi-row insert, then one look at the tasks holding the
     * idempotency keys that were taken (by an earlier submission, a concurrent one, or an earlier task of this
     * batch with the same key): the same request gets the task the key's first submission made, a different one
     * is refused ({@link ReusedKey}). A task with dependencies is refused if one cannot be met
     * ({@link UnmetDependency}). If PostgreSQL fails, nothing is stored.
     *
     * @return one outcome per task, in the order of {@code tasks}
     */
    public List<Submitted> submitAll(List<NewTask> tasks) {
        return submit(tasks, true, null).items();
    }

    /**
     * As {@link #submitAll}, the tasks stored joining the batch of {@code plan} (DESIGN.md, "Batches") in the same
     * transaction: a new one, whose then task counts in the owner's quota, or an open one, which only a request that
     * adds no task may find closed (it was made before). The tasks share one owner.
     *
     * @throws BatchRefusedException if the plan's batch cannot be joined; nothing was stored
     */
    public SubmittedBatch submitAll(List<NewTask> tasks, BatchPlan plan) {
        return submit(tasks, true, plan);
    }

    /**
     * As {@link #submitAll}, for submissions that only share the insert ({@link GroupedSubmissions}): each is
     * held to its owner's quota on its own, in their order, so those that still fit are stored.
     */
    public List<Submitted> submitEach(List<NewTask> tasks) {
        return submit(tasks, false, null).items();
    }

    private SubmittedBatch submit(List<NewTask> submitted, boolean quotaForAll, BatchPlan plan) {
        if (submitted.isEmpty()) {
            return new SubmittedBatch(List.of(), null);
        }
        int size = submitted.size();
        Submitted[] outcomes = new Submitted[size];
        List<TransitionMeters.Moved> created = new ArrayList<>();
        // It locks the tasks its new ones wait for, which a bulk step or another submission may lock too.
        UUID batch = database.retryingDeadlocks(() -> database.inTransaction(connection -> {
            Arrays.fill(outcomes, null);
            created.clear();
            List<NewTask> counted = new ArrayList<>(submitted);
            if (plan instanceof BatchPlan.NewBatch made) {
                counted.add(made.then());
            }
            Submitted[] quota = new Submitted[counted.size()];
            refuseOverQuota(connection, counted, quotaForAll, quota);
            System.arraycopy(quota, 0, outcomes, 0, size);
            if (plan != null && Arrays.stream(quota).anyMatch(OverQuota.class::isInstance)) {
                return null; // the batch's one owner is over its quota: nothing is stored
            }
            Savepoint beforeBatch = plan == null ? null : connection.setSavepoint();
            BatchMembership.Joined joined = plan == null ? null
                    : batches.join(connection, plan, submitted.getFirst().owner());
            UUID batchId = joined == null ? null : joined.id();
            boolean anyItems = submitted.stream().anyMatch(task -> !task.dependencies().items().isEmpty());
            // Items found to be tasks made already (their idempotency key's), waited for by their ids from then on.
            Map<Integer, UUID> existing = new HashMap<>();
            Submitted[] beforeInsert = outcomes.clone();
            while (true) {
                Savepoint beforeThisTry = anyItems ? connection.setSavepoint() : null;
                List<NewTask> tasks = existing.isEmpty() ? submitted : submitted.stream()
                        .map(task -> task.waitingFor(task.dependencies().withIds(existing))).toList();
                List<Integer> storedNow = insertEach(connection, tasks, outcomes, created, batchId);
                // An item another item waits for was not inserted (its key had made a task already, or names another
                // request): again, without it, so that its dependents wait for the task it names, or are refused.
                Set<Integer> missed = new HashSet<>();
                for (int i : storedNow) {
                    tasks.get(i).dependencies().items().stream().filter(item -> !storedNow.contains(item))
                            .forEach(missed::add);
                }
                if (missed.isEmpty()) {
                    if (joined != null && joined.made() && storedNow.isEmpty()) {
                        connection.rollback(beforeBatch); // a batch of no task is not made, nor its then task
                        return null;
                    }
                    if (joined != null) {
                        batches.added(connection, joined, storedNow.size(), plan.open());
                    }
                    return batchId;
                }
                connection.rollback(beforeThisTry);
                for (int item : missed) {
                    if (outcomes[item] instanceof Submission made) {
                        existing.put(item, made.task().id());
                    }
                    beforeInsert[item] = outcomes[item];
                }
                System.arraycopy(beforeInsert, 0, outcomes, 0, size);
                created.clear();
            }
        }));
        // Committed: database.inTransaction() returns only after the commit.
        meters.moved(created);
        return new SubmittedBatch(List.of(outcomes), batch);
    }

    /**
     * The insert of the tasks not refused yet, after their dependencies' checks, with their edges; each one's outcome
     * in {@code outcomes}, and the moves of those created in {@code created}.
     *
     * @return the places of the tasks inserted
     */
    private List<Integer> insertEach(Connection connection, List<NewTask> tasks, Submitted[] outcomes,
            List<TransitionMeters.Moved> created, UUID batch) throws SQLException {
        int size = tasks.size();
        Map<UUID, Dependency> dependencies = lockDependencies(connection, tasks, outcomes);
        refuseUnmetDependencies(tasks, dependencies, outcomes);
        List<Integer> stored = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            if (outcomes[i] == null) {
                stored.add(i);
            }
        }
        if (stored.isEmpty()) {
            return List.of();
        }
        UUID[] ids = new UUID[size];
        String[] payloads = new String[size];
        Map<UUID, Integer> byId = new HashMap<>(stored.size() * 2);
        Set<Integer> waitedFor = new HashSet<>();
        for (int i : stored) {
            ids[i] = UUID.randomUUID();
            payloads[i] = rows.write(tasks.get(i).payload());
            byId.put(ids[i], i);
            waitedFor.addAll(tasks.get(i).dependencies().items());
        }
        List<Task> inserted = inserts.insert(connection, stored.stream().map(i -> new TaskInserts.Row(ids[i],
                tasks.get(i), payloads[i], unended(tasks.get(i), dependencies), waitedFor.contains(i), false)).toList(),
                batch);
        List<Integer> storedNow = new ArrayList<>();
        for (Task task : inserted) {
            int i = byId.get(task.id());
            List<UUID> dependsOn = new ArrayList<>(tasks.get(i).dependencies().ids());
            tasks.get(i).dependencies().items().forEach(item -> dependsOn.add(ids[item]));
            outcomes[i] = new Submission(task.dependingOn(dependsOn), true);
            storedNow.add(i);
            created.add(new TransitionMeters.Moved(task.status(), task.type()));
        }
        insertEdges(connection, storedNow.stream().filter(i -> tasks.get(i).dependencies().any())
                .map(i -> Map.entry(ids[i], tasks.get(i))).toList(), dependencies, item -> ids[item]);
        List<Integer> taken = new ArrayList<>();
        for (int i : stored) {
            if (outcomes[i] == null) {
                if (tasks.get(i).idempotencyKey() == null) {
                    throw new IllegalStateException("a task without an idempotency key was not inserted");
                }
                taken.add(i);
            }
        }
        if (!taken.isEmpty()) {
            answerTakenKeys(connection, tasks, taken, payloads, outcomes);
        }
        return storedNow;
    }

    /** The outcomes of the tasks whose idempotency keys had made tasks already: that task, or {@link ReusedKey}. */
    private void answerTakenKeys(Connection connection, List<NewTask> tasks, List<Integer> taken, String[] payloads,
            Submitted[] outcomes) throws SQLException {
        // The conflicting inserts have committed (or are this batch's own), so their rows are visible now.
        try (PreparedStatement first = connection.prepareStatement("select " + TaskRows.COLUMNS
                + ", (type = wanted_type and payload = wanted_payload::jsonb "
                + "and concurrency_key is not distinct from wanted_group) as same_request, item "
                + "from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[]) as wanted(wanted_key, "
                + "wanted_owner, wanted_type, wanted_payload, item, wanted_group) join tasks on idempotency_key = wanted_key "
                + "and coalesce(owner, '') = coalesce(wanted_owner, '')")) {
            first.setArray(1, connection.createArrayOf("text",
                    taken.stream().map(i -> tasks.get(i).idempotencyKey()).toArray()));
            first.setArray(2, connection.createArrayOf("text", taken.stream().map(i -> tasks.get(i).owner()).toArray()));
            first.setArray(3, connection.createArrayOf("text", taken.stream().map(i -> tasks.get(i).type()).toArray()));
            first.setArray(4, connection.createArrayOf("text", taken.stream().map(i -> payloads[i]).toArray()));
            first.setArray(5, connection.createArrayOf("int4", taken.toArray()));
            first.setArray(6, connection.createArrayOf("text",
                    taken.stream().map(i -> tasks.get(i).concurrencyKey()).toArray()));
            try (ResultSet row = first.executeQuery()) {
                while (row.next()) {
                    Task existing = rows.task(row);
                    int item = row.getInt("item");
                    outcomes[item] = row.getBoolean("same_request") ? new Submission(existing, false)
                            : new ReusedKey(tasks.get(item).idempotencyKey(), existing.id());
                }
            }
        }
        for (int i : taken) {
            if (outcomes[i] == null) {
                throw new IllegalStateException("idempotency key conflicted but no task holds it");
            }
        }
    }

    /** A dependency as its row was when locked: its owner and status. */
    private record Dependency(String owner, TaskStatus status) {

        boolean failed() {
            return status == TaskStatus.DEAD || status == TaskStatus.CANCELLED;
        }
    }

    /**
     * Locks the rows of every task the submissions not refused yet depend on, of their owners only, and marks them as
     * depended on ({@code has_dependents}, which makes their end leave a follow-up): until this transaction ends, none
     * of them can end, and once it has, the follow-ups of each one's end find the edges this transaction adds
     * (DESIGN.md, "Dependencies", "Follow-ups"). The tasks not WAITING are locked first, then the WAITING ones, each in
     * id order, the order in which the follow-ups job locks the WAITING dependents it moves. Answers each one's owner and status as locked; an id that names no task of the owner
     * asking is absent.
     */
    private static Map<UUID, Dependency> lockDependencies(Connection connection, List<NewTask> tasks, Submitted[] outcomes)
            throws SQLException {
        Set<Map.Entry<UUID, String>> wanted = new HashSet<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (outcomes[i] == null) {
                String owner = tasks.get(i).owner();
                tasks.get(i).dependencies().ids().forEach(id -> wanted.add(new AbstractMap.SimpleEntry<>(id, owner)));
            }
        }
        if (wanted.isEmpty()) {
            return Map.of();
        }
        Map<UUID, Dependency> found = new HashMap<>();
        lockDependencies(connection, wanted, "t.status <> 'WAITING'", found);
        wanted.removeIf(pair -> found.containsKey(pair.getKey()));
        if (!wanted.isEmpty()) {
            lockDependencies(connection, wanted, "true", found);
        }
        return found;
    }

    private static void lockDependencies(Connection connection, Set<Map.Entry<UUID, String>> wanted, String condition,
            Map<UUID, Dependency> found) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("with locked as (select t.id from tasks t "
                + "join unnest(?::uuid[], ?::text[]) as wanted(id, owner) on t.id = wanted.id "
                + "and coalesce(t.owner, '') = coalesce(wanted.owner, '') where " + condition + " "
                + "order by t.id for no key update of t) update tasks set has_dependents = true "
                + "from locked where tasks.id = locked.id returning tasks.id, tasks.owner, tasks.status")) {
            lock.setArray(1, connection.createArrayOf("uuid", wanted.stream().map(Map.Entry::getKey).toArray()));
            lock.setArray(2, connection.createArrayOf("text", wanted.stream().map(Map.Entry::getValue).toArray()));
            try (ResultSet row = lock.executeQuery()) {
                while (row.next()) {
                    found.put(row.getObject(1, UUID.class),
                            new Dependency(row.getString(2), TaskStatus.valueOf(row.getString(3))));
                }
            }
        }
    }

    /**
     * Marks {@link UnmetDependency} the tasks that depend on a task their owner does not have, on one that has ended
     * DEAD or CANCELLED while they would be cancelled by that, or on an item of the submission that is not stored:
     * each would be a task that can never run.
     */
    private static void refuseUnmetDependencies(List<NewTask> tasks, Map<UUID, Dependency> dependencies,
            Submitted[] outcomes) {
        refuseUnmetIds(tasks, dependencies, outcomes);
        boolean refused = true;
        while (refused) { // until no refusal leaves another item waiting for a task that will not be
            refused = false;
            for (int i = 0; i < tasks.size(); i++) {
                if (outcomes[i] == null
                        && tasks.get(i).dependencies().items().stream().anyMatch(item -> outcomes[item] != null)) {
                    outcomes[i] = new UnmetDependency("it depends on another task of this request, which is not stored");
                    refused = true;
                }
            }
        }
    }

    private static void refuseUnmetIds(List<NewTask> tasks, Map<UUID, Dependency> dependencies, Submitted[] outcomes) {
        for (int i = 0; i < tasks.size(); i++) {
            NewTask task = tasks.get(i);
            if (outcomes[i] != null) {
                continue;
            }
            for (UUID id : task.dependencies().ids()) {
                Dependency dependency = dependencies.get(id);
                if (dependency == null || !Objects.equals(dependency.owner(), task.owner())) {
                    outcomes[i] = new UnmetDependency("dependsOn names task " + id + ", which "
                            + (task.owner() == null ? "does not exist" : "API key '" + task.owner() + "' does not have"));
                    break;
                }
                if (dependency.failed() && !task.dependencies().runIfOneFails()) {
                    outcomes[i] = new UnmetDependency("dependsOn names task " + id + ", which has ended "
                            + dependency.status() + ": this task would be cancelled at once (onDependencyFailure "
                            + "'cancel'); send onDependencyFailure 'run' to run it anyway");
                    break;
                }
            }
        }
    }

    /** How many of the task's dependencies have not ended yet (the items submitted with it never have). */
    private static int unended(NewTask task, Map<UUID, Dependency> dependencies) {
        return task.dependencies().items().size()
                + (int) task.dependencies().ids().stream().filter(id -> !dependencies.get(id).status().ended()).count();
    }

    /** The edges of the tasks inserted with dependencies; those whose dependency had ended are resolved already. */
    private static void insertEdges(Connection connection, List<Map.Entry<UUID, NewTask>> dependents,
            Map<UUID, Dependency> dependencies, IntFunction<UUID> itemId) throws SQLException {
        if (dependents.isEmpty()) {
            return;
        }
        List<UUID> from = new ArrayList<>();
        List<UUID> to = new ArrayList<>();
        List<Boolean> resolved = new ArrayList<>();
        for (Map.Entry<UUID, NewTask> dependent : dependents) {
            for (UUID id : dependent.getValue().dependencies().ids()) {
                from.add(id);
                to.add(dependent.getKey());
                resolved.add(dependencies.get(id).status().ended());
            }
            for (int item : dependent.getValue().dependencies().items()) {
                from.add(itemId.apply(item));
                to.add(dependent.getKey());
                resolved.add(false);
            }
        }
        try (PreparedStatement insert = connection.prepareStatement("insert into task_dependencies "
                + "(depends_on, task_id, resolved) select * from unnest(?::uuid[], ?::uuid[], ?::boolean[])")) {
            insert.setArray(1, connection.createArrayOf("uuid", from.toArray()));
            insert.setArray(2, connection.createArrayOf("uuid", to.toArray()));
            insert.setArray(3, connection.createArrayOf("bool", resolved.toArray()));
            insert.executeUpdate();
        }
    }

    /**
     * Marks {@link OverQuota} the tasks that would take their owner past its quota: with {@code quotaForAll} every
     * task of an owner whose unfinished tasks and these together exceed it, else those beyond the room left. Each
     * owner with a quota is counted under its quota lock ({@link Quotas#lockAndCount}), taken in name order,
     * before any row is written.
     */
    private void refuseOverQuota(Connection connection, List<NewTask> tasks, boolean quotaForAll, Submitted[] outcomes)
            throws SQLException {
        Map<String, List<Integer>> byOwner = new TreeMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            String owner = tasks.get(i).owner();
            if (quotas.limitFor(owner).isPresent()) {
                byOwner.computeIfAbsent(owner, any -> new ArrayList<>()).add(i);
            }
        }
        for (Map.Entry<String, List<Integer>> owner : byOwner.entrySet()) {
            int limit = quotas.limitFor(owner.getKey()).getAsInt();
            long unfinished = quotas.lockAndCount(connection, owner.getKey(), limit);
            List<Integer> items = owner.getValue();
            long room = Math.max(0, limit - unfinished);
            if (items.size() > room) {
                OverQuota refused = new OverQuota(owner.getKey(), unfinished, limit, quotaForAll ? items.size() : 1, false);
                items.subList(quotaForAll ? 0 : (int) room, items.size()).forEach(i -> outcomes[i] = refused);
            }
        }
    }

    /**
     * Inserts a schedule's occurrences in the caller's (fenced) transaction; an occurrence whose idempotency key
     * is taken already becomes no second task. Held to their owner's quota as single submissions are: those
     * beyond the room its quota leaves are not made (the schedule moves on past them, as past a missed
     * occurrence). The caller counts the tasks made ({@link TransitionMeters#moved}) once its transaction has
     * committed.
     */
    public OccurrenceTasks submitOccurrences(Connection connection, List<NewTask> all) throws SQLException {
        // Occurrences made already (an edit moved the schedule back) make nothing: they take no room of the quota.
        List<NewTask> occurrences = all.isEmpty() || quotas.limitFor(all.getFirst().owner()).isEmpty() ? all
                : notMadeYet(connection, all);
        if (occurrences.isEmpty()) {
            return OccurrenceTasks.NONE;
        }
        Submitted[] outcomes = new Submitted[occurrences.size()];
        refuseOverQuota(connection, occurrences, false, outcomes);
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

package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import jakarta.enterprise.context.ApplicationScoped;


import io.taskfence.store.TaskDatabase;
import io.taskfence.task.Task;
import io.taskfence.task.TaskRows;
import io.taskfence.task.dependency.DependencyEdges;
import io.taskfence.task.dependency.DependencyEdges.Dependency;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.ReusedKey;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.submit.outcome.SubmittedBatch;
import io.taskfence.task.submit.outcome.BatchRefusedException;
import io.taskfence.task.submit.outcome.TypeTakenBack;
import io.taskfence.types.RemoteTypes;
import io.taskfence.types.TypeLimits;
import io.taskfence.task.transition.TransitionMeters;

/**
 * Client → PENDING, or WAITING for the tasks it depends on: single, grouped and bulk submissions, and batches, through
 * the one insert ({@link TaskInserts}). Idempotency keys are per owner; an owner's quota is exact ({@link Quotas}).
 */
@ApplicationScoped
public class Submissions {

    private final TaskDatabase database;
    private final TaskRows rows;
    private final TransitionMeters meters;
    private final Quotas quotas;
    private final BatchMembership batches;
    private final TaskInserts inserts;
    private final RemoteTypes types;
    private final Dedupes dedupes;

    Submissions(TaskDatabase database, TaskRows rows, TransitionMeters meters, Quotas quotas, RemoteTypes types,
            TypeLimits limits) {
        this.database = database;
        this.types = types;
        this.rows = rows;
        this.meters = meters;
        this.quotas = quotas;
        this.inserts = new TaskInserts(rows, limits);
        this.batches = new BatchMembership(rows, inserts);
        this.dedupes = new Dedupes(rows);
    }

    /**
     * Client → PENDING for many tasks in one transaction: first each owner's quota (exact: under the owner's advisory
     * lock, see {@link Quotas}), then one multi-row insert, then one look at the tasks holding the idempotency keys
     * that were taken (by an earlier submission, a concurrent one, or an earlier task of this batch with the same key):
     * the same request gets the task the key's first submission made, a different one is refused ({@link ReusedKey}). A
     * task with dependencies is refused if one cannot be met ({@link UnmetDependency}). PostgreSQL failing stores none.
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
            // Locks in one order, whatever the submission: dedupe keys, then owners' quotas, then task rows.
            Dedupes.Keys keys = dedupes.lockKeys(connection, submitted);
            if (!keys.none()) {
                quotas.lockOwners(connection, submitted.stream().map(NewTask::owner).toList());
            }
            Dedupes.Found found = dedupes.find(connection, submitted, keys);
            List<NewTask> toStore = found == Dedupes.Found.NONE ? submitted
                    : submitted.stream().map(task -> Dedupes.asMade(task, found.now())).toList();
            List<NewTask> counted = new ArrayList<>(toStore);
            if (plan instanceof BatchPlan.NewBatch newBatch) {
                counted.add(newBatch.then());
            }
            Submitted[] quota = new Submitted[counted.size()];
            refuseOverQuota(connection, counted, quotaForAll, found, quota);
            System.arraycopy(quota, 0, outcomes, 0, size);
            if (plan != null && Arrays.stream(quota).anyMatch(OverQuota.class::isInstance)) {
                return null; // the batch's one owner is over its quota: nothing is stored
            }
            refuseTypesTakenBack(connection, counted, outcomes);
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
                List<NewTask> tasks = existing.isEmpty() ? toStore : toStore.stream()
                        .map(task -> task.waitingFor(task.dependencies().withIds(existing))).toList();
                List<Integer> storedNow = insertEach(connection, tasks, outcomes, created, batchId,
                        joined == null ? null : joined.thenTask(), found);
                // An item another item waits for was not inserted (its key had made a task already, or names another
                // request): again, without it, so that its dependents wait for the task it names, or are refused.
                Set<Integer> missed = new HashSet<>();
                for (int i : storedNow) {
                    tasks.get(i).dependencies().items().stream().filter(item -> !storedNow.contains(item))
                            .forEach(missed::add);
                }
                if (missed.isEmpty()) {
                    dedupes.answer(connection, toStore, found, outcomes);
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
     * in {@code outcomes}, and the moves of those created in {@code created}. {@code thenTask} is the then task of
     * the batch they join, if they join one.
     *
     * @return the places of the tasks inserted
     */
    private List<Integer> insertEach(Connection connection, List<NewTask> tasks, Submitted[] outcomes,
            List<TransitionMeters.Moved> created, UUID batch, UUID thenTask, Dedupes.Found found) throws SQLException {
        int size = tasks.size();
        Map<UUID, Dependency> dependencies = DependencyChecks.lockDependencies(connection, tasks, outcomes);
        DependencyChecks.refuseUnmetDependencies(tasks, dependencies, thenTask, outcomes);
        List<Integer> stored = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            if (outcomes[i] == null && !found.answered(i)) {
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
                tasks.get(i), payloads[i], DependencyChecks.unended(tasks.get(i), dependencies), waitedFor.contains(i),
                false)).toList(), batch);
        List<Integer> storedNow = new ArrayList<>();
        for (Task task : inserted) {
            int i = byId.get(task.id());
            List<UUID> dependsOn = new ArrayList<>(tasks.get(i).dependencies().ids());
            tasks.get(i).dependencies().items().forEach(item -> dependsOn.add(ids[item]));
            outcomes[i] = new Submission(task.dependingOn(dependsOn), true);
            storedNow.add(i);
            created.add(new TransitionMeters.Moved(task.status(), task.type()));
        }
        DependencyEdges.insert(connection, storedNow.stream().flatMap(i -> DependencyChecks.edges(ids[i], tasks.get(i).dependencies(),
                dependencies, item -> ids[item]).stream()).toList());
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

    /**
     * {@link Quotas#refuseOverQuota} for the tasks that would make one: not those whose dedupe keys answer a task
     * ({@code found}), which count as that one.
     */
    private void refuseOverQuota(Connection connection, List<NewTask> counted, boolean quotaForAll,
            Dedupes.Found found, Submitted[] quota) throws SQLException {
        List<Integer> making = IntStream.range(0, counted.size()).filter(i -> !found.answered(i)).boxed().toList();
        Submitted[] some = new Submitted[making.size()];
        quotas.refuseOverQuota(connection, making.stream().map(counted::get).toList(), quotaForAll, some);
        for (int j = 0; j < making.size(); j++) {
            quota[making.get(j)] = some[j];
        }
        // Refused for all (a bulk submission): its answered places change nothing either.
        for (int j = 0; quotaForAll && j < making.size(); j++) {
            if (some[j] instanceof OverQuota refused) {
                for (int i = 0; i < counted.size(); i++) {
                    if (Objects.equals(counted.get(i).owner(), refused.owner())) {
                        quota[i] = refused;
                    }
                }
            }
        }
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

    /**
     * Marks {@link TypeTakenBack} the tasks whose declared type was taken back since their checks, and holds the
     * others' types ({@link RemoteTypes#lockDeclared}) until the commit: a type is not taken back while its tasks are
     * stored. A batch's then task ({@code counted} past the submitted tasks) of such a type refuses the batch.
     */
    private void refuseTypesTakenBack(Connection connection, List<NewTask> counted, Submitted[] outcomes)
            throws SQLException {
        Set<String> gone = types.lockDeclared(connection, counted.stream().map(NewTask::type).toList());
        for (int i = 0; i < counted.size() && !gone.isEmpty(); i++) {
            String type = counted.get(i).type();
            if (i >= outcomes.length && gone.contains(type)) {
                throw new BatchRefusedException(BatchRefusedException.Reason.THEN_TYPE_TAKEN_BACK,
                        "then: " + new TypeTakenBack(type).detail());
            }
            if (i < outcomes.length && outcomes[i] == null && gone.contains(type)) {
                outcomes[i] = new TypeTakenBack(type);
            }
        }
    }
}

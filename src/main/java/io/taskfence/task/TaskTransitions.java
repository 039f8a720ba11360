package io.taskfence.task;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;


import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Every change of a task's status (DESIGN section 1), and nothing else writes {@code status}. Each
 * transition is one conditional statement ({@code ... WHERE id = ? AND status = ?}); when it reports
 * that it lost (empty, false or zero), another actor changed the row first, which is a normal outcome.
 * Times come from PostgreSQL's {@code now()}, never from this replica's clock. The batch transitions of
 * the single-replica jobs run in one transaction with the fence check of DESIGN section 3. Every change
 * that committed is counted ({@link TransitionMeters}); the batches return their rows' types for that.
 */
@ApplicationScoped
public class TaskTransitions {

    /** Full-jitter exponential backoff for the attempt just made: random() * min(cap, base * 2^(attempt-1)). */
    private static final String BACKOFF = "now() + random() * least(?::bigint, ?::bigint * power(2, least(attempt - 1, 40)))"
            + " * interval '1 millisecond'";
    /** A failed attempt ends the task when it was the last one, or when the deadline has passed. */
    private static final String EXHAUSTED = "(attempt >= max_attempts or (deadline is not null and deadline <= now()))";
    /** The due tasks a dispatch batch may take, locked; completed by a condition on the type and {@link #DUE_ORDER}. */
    private static final String DUE = "select id, priority, run_at from tasks where status in ('PENDING', 'FAILED') "
            + "and run_at <= now() ";
    private static final String DUE_ORDER = "order by priority desc, run_at limit ? for update skip locked";

    /** ENQUEUED → PROCESSING for the ids in ?1, by claimer ?2 with a lease of ?3 ms ({@link #claim(Collection, String, Duration)}). */
    private static final String CLAIMED = "with claimable as (select id from tasks "
            + "where id = any(?) and status = 'ENQUEUED' order by id for update), "
            + "claimed as (update tasks set status = 'PROCESSING', attempt = attempt + 1, "
            + "worker = ? || '/' || gen_random_uuid(), lease_until = now() + ? * interval '1 millisecond', "
            + "updated_at = now() from claimable where tasks.id = claimable.id and tasks.status = 'ENQUEUED' "
            + "returning tasks.id, type, payload, attempt, worker, "
            + "extract(epoch from now() - created_at) as waited_seconds) ";
    private static final String CLAIM = CLAIMED + "select * from claimed";
    /** {@link #CLAIM}, also recording the starts of the rate-limited types in ?4: only used when a type has a rate. */
    private static final String CLAIM_RECORDING_STARTS = CLAIMED
            + ", started as (insert into type_starts (type, at, tasks) select type, now(), count(*) from claimed "
            + "where type = any(?) group by type) select * from claimed";

    private final TaskDatabase database;
    private final TaskRows rows;
    private final TransitionMeters meters;
    private final Quotas quotas;
    private final TypeLimits limits;

    TaskTransitions(TaskDatabase database, TaskRows rows, TransitionMeters meters, Quotas quotas, TypeLimits limits) {
        this.database = database;
        this.rows = rows;
        this.meters = meters;
        this.quotas = quotas;
        this.limits = limits;
    }

    /**
     * Client → PENDING; with an idempotency key already used, the task the first submission made:
     * {@link #submitAll} of one.
     *
     * @throws IdempotencyKeyReusedException if the key names a task made by a different request
     * @throws OverQuotaException if the owner has as many unfinished tasks as its quota allows
     */
    public Submission submit(NewTask task) {
        return switch (submitAll(List.of(task)).getFirst()) {
            case Submission submission -> submission;
            case ReusedKey reused -> throw new IdempotencyKeyReusedException(reused);
            case OverQuota refused -> throw new OverQuotaException(refused);
        };
    }

    /**
     * Client → PENDING for many tasks in one transaction: first each owner's quota (exact: under the owner's
     * advisory lock, see {@link Quotas}), then one multi-row insert, then one look at the tasks holding the
     * idempotency keys that were taken (by an earlier submission, a concurrent one, or an earlier task of this
     * batch with the same key), each judged as {@link #submit} judges it. Idempotency keys are per owner. Rows
     * go in in (owner, key) order, so that two batches sharing keys wait for each other instead of
     * deadlocking. If PostgreSQL fails, nothing is stored.
     *
     * @return one outcome per task, in the order of {@code tasks}
     */
    public List<Submitted> submitAll(List<NewTask> tasks) {
        return submit(tasks, true);
    }

    /**
     * As {@link #submitAll}, for submissions that only share the insert ({@link GroupedSubmissions}): each is
     * held to its owner's quota on its own, in their order, so those that still fit are stored.
     */
    public List<Submitted> submitEach(List<NewTask> tasks) {
        return submit(tasks, false);
    }

    private List<Submitted> submit(List<NewTask> tasks, boolean quotaForAll) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        int size = tasks.size();
        Submitted[] outcomes = new Submitted[size];
        List<TransitionMeters.Moved> created = new ArrayList<>();
        database.inTransaction(connection -> {
            refuseOverQuota(connection, tasks, quotaForAll, outcomes);
            List<Integer> stored = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                if (outcomes[i] == null) {
                    stored.add(i);
                }
            }
            if (stored.isEmpty()) {
                return null;
            }
            UUID[] ids = new UUID[stored.size()];
            String[] payloads = new String[size];
            Map<UUID, Integer> byId = new HashMap<>(stored.size() * 2);
            for (int n = 0; n < stored.size(); n++) {
                int i = stored.get(n);
                ids[n] = UUID.randomUUID();
                payloads[i] = rows.write(tasks.get(i).payload());
                byId.put(ids[n], i);
            }
            try (PreparedStatement insert = connection.prepareStatement("insert into tasks (id, type, payload, "
                    + "max_attempts, priority, run_at, deadline, idempotency_key, owner) select id, type, payload::jsonb, "
                    + "max_attempts, priority, coalesce(run_at, now()), deadline, key, owner from unnest(?::uuid[], "
                    + "?::text[], ?::text[], ?::int[], ?::int[], ?::timestamptz[], ?::timestamptz[], ?::text[], ?::text[]) "
                    + "with ordinality as item(id, type, payload, max_attempts, priority, run_at, deadline, key, owner, ord) "
                    + "order by coalesce(owner, ''), key, ord "
                    + "on conflict (coalesce(owner, ''), idempotency_key) where idempotency_key is not null do nothing "
                    + "returning " + TaskRows.COLUMNS)) {
                insert.setArray(1, connection.createArrayOf("uuid", ids));
                insert.setArray(2, connection.createArrayOf("text", stored.stream().map(i -> tasks.get(i).type()).toArray()));
                insert.setArray(3, connection.createArrayOf("text", stored.stream().map(i -> payloads[i]).toArray()));
                insert.setArray(4, connection.createArrayOf("int4", stored.stream().map(i -> tasks.get(i).maxAttempts()).toArray()));
                insert.setArray(5, connection.createArrayOf("int4", stored.stream().map(i -> tasks.get(i).priority()).toArray()));
                // As ISO-8601 text: a Timestamp is written with its offset when bound alone (submit binds
                // it so), but inside an array the driver writes it without one, in the session's time zone.
                insert.setArray(6, connection.createArrayOf("text", stored.stream().map(i -> tasks.get(i).runAt())
                        .map(TaskTransitions::isoText).toArray()));
                insert.setArray(7, connection.createArrayOf("text", stored.stream().map(i -> tasks.get(i).deadline())
                        .map(TaskTransitions::isoText).toArray()));
                insert.setArray(8, connection.createArrayOf("text", stored.stream().map(i -> tasks.get(i).idempotencyKey()).toArray()));
                insert.setArray(9, connection.createArrayOf("text", stored.stream().map(i -> tasks.get(i).owner()).toArray()));
                for (Task task : readTasks(insert)) {
                    outcomes[byId.get(task.id())] = new Submission(task, true);
                    created.add(new TransitionMeters.Moved(TaskStatus.PENDING, task.type()));
                }
            }
            List<Integer> taken = new ArrayList<>();
            for (int i : stored) {
                if (outcomes[i] == null) {
                    if (tasks.get(i).idempotencyKey() == null) {
                        throw new IllegalStateException("a task without an idempotency key was not inserted");
                    }
                    taken.add(i);
                }
            }
            if (taken.isEmpty()) {
                return null;
            }
            // The conflicting inserts have committed (or are this batch's own), so their rows are visible now.
            try (PreparedStatement first = connection.prepareStatement("select " + TaskRows.COLUMNS
                    + ", (type = wanted_type and payload = wanted_payload::jsonb) as same_request, item "
                    + "from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int[]) as wanted(wanted_key, "
                    + "wanted_owner, wanted_type, wanted_payload, item) join tasks on idempotency_key = wanted_key "
                    + "and coalesce(owner, '') = coalesce(wanted_owner, '')")) {
                first.setArray(1, connection.createArrayOf("text",
                        taken.stream().map(i -> tasks.get(i).idempotencyKey()).toArray()));
                first.setArray(2, connection.createArrayOf("text", taken.stream().map(i -> tasks.get(i).owner()).toArray()));
                first.setArray(3, connection.createArrayOf("text", taken.stream().map(i -> tasks.get(i).type()).toArray()));
                first.setArray(4, connection.createArrayOf("text", taken.stream().map(i -> payloads[i]).toArray()));
                first.setArray(5, connection.createArrayOf("int4", taken.toArray()));
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
            return null;
        });
        // Committed: database.inTransaction() returns only after the commit.
        meters.moved(created);
        return List.of(outcomes);
    }

    /**
     * Marks {@link OverQuota} the tasks that would take their owner past its quota: with {@code quotaForAll} every
     * task of an owner whose unfinished tasks and these together exceed it, else those beyond the room left. Each owner with a quota is counted under its transaction-scoped advisory lock, taken in name order
     * (so two inserts never deadlock on them) before any row is written: the next insert for the owner counts
     * only after this one has committed or rolled back, so the quota holds exactly.
     */
    private void refuseOverQuota(Connection connection, List<NewTask> tasks, boolean quotaForAll, Submitted[] outcomes)
            throws SQLException {
        Map<String, List<Integer>> byOwner = new TreeMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            String owner = tasks.get(i).owner();
            if (owner != null && quotas.limitFor(owner).isPresent()) {
                byOwner.computeIfAbsent(owner, any -> new ArrayList<>()).add(i);
            }
        }
        for (Map.Entry<String, List<Integer>> owner : byOwner.entrySet()) {
            int limit = quotas.limitFor(owner.getKey()).getAsInt();
            try (PreparedStatement lock = connection.prepareStatement(
                    "select pg_advisory_xact_lock(hashtextextended('taskfence.quota/' || ?, 0))");
                    PreparedStatement count = connection.prepareStatement("select count(*) from tasks where owner = ? "
                            + "and status in ('PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED')")) {
                lock.setString(1, owner.getKey());
                lock.execute();
                count.setString(1, owner.getKey());
                long unfinished;
                try (ResultSet row = count.executeQuery()) {
                    row.next();
                    unfinished = row.getLong(1);
                }
                List<Integer> items = owner.getValue();
                long room = Math.max(0, limit - unfinished);
                if (items.size() > room) {
                    OverQuota refused = new OverQuota(owner.getKey(), unfinished, limit, quotaForAll ? items.size() : 1);
                    items.subList(quotaForAll ? 0 : (int) room, items.size()).forEach(i -> outcomes[i] = refused);
                }
            }
        }
    }

    /** PENDING, ENQUEUED, PROCESSING or FAILED → CANCELLED. */
    public Optional<Task> cancel(UUID id) {
        return cancel(id, TaskScope.ALL);
    }

    /**
     * PENDING, ENQUEUED, PROCESSING or FAILED → CANCELLED, if the task is in {@code scope}. A PROCESSING task's
     * claim is voided in the same statement (no lease, no claim id): every write its worker may still make
     * (heartbeat, success, failure, later) names that claim and a PROCESSING status, so all of them lose from
     * here on. The worker learns it at its next heartbeat and interrupts the handler. The status the row had
     * is read under the row's lock (the statement's CTE), so that a cancel of a running task is counted as such.
     */
    public Optional<Task> cancel(UUID id, TaskScope scope) {
        Optional<Task> cancelled = database.inConnection(connection -> {
            try (PreparedStatement cancel = connection.prepareStatement("with target as (select id as target_id, "
                    + "status as was from tasks where id = ? and (?::text is null or owner = ?) "
                    + "and status in ('PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED') for update) "
                    + "update tasks set status = 'CANCELLED', lease_until = null, worker = null, updated_at = now() "
                    // The row is locked with a status that may be cancelled: no second status test, which would
                    // see the statement's snapshot, older than the row the lock waited for (a claim's).
                    + "from target where id = target_id returning " + TaskRows.COLUMNS + ", was")) {
                cancel.setObject(1, id);
                cancel.setString(2, scope.owner());
                cancel.setString(3, scope.owner());
                try (ResultSet row = cancel.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    Task task = rows.task(row);
                    if (TaskStatus.PROCESSING.name().equals(row.getString("was"))) {
                        meters.cancelledWhileRunning(task.type());
                    }
                    return Optional.of(task);
                }
            }
        });
        return counted(cancelled);
    }

    /** DEAD or CANCELLED → PENDING, due now, with all its attempts again. */
    public Optional<Task> retry(UUID id) {
        return retry(id, TaskScope.ALL);
    }

    /**
     * DEAD or CANCELLED → PENDING, due now, with all its attempts again, if the task is in {@code scope}. Not
     * held to the owner's quota: it brings back a task the owner already had.
     */
    public Optional<Task> retry(UUID id, TaskScope scope) {
        return counted(single("update tasks set status = 'PENDING', attempt = 0, run_at = now(), lease_until = null, "
                + "worker = null, updated_at = now() where id = ? and (?::text is null or owner = ?) "
                + "and status in ('DEAD', 'CANCELLED') returning " + TaskRows.COLUMNS, id, scope));
    }

    /**
     * Due PENDING and FAILED → ENQUEUED, at most {@code limit}, highest priority then oldest {@code run_at}
     * first, in one fenced transaction. Rows another transaction has locked are skipped, not waited for.
     * Paused types are left out, and a limited type gets at most the room its limits leave ({@link
     * DispatchRoom}): its due tasks are read by a select of their own, limited to that room, beside the select
     * of all other types, so that a type at its limit never takes the batch's places from the others.
     *
     * @return the ids moved, in the order to push them to the queue
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was moved
     */
    public List<UUID> enqueueDue(FenceToken fence, int limit) {
        record Enqueued(UUID id, String type) {
        }
        List<Enqueued> enqueued = database.fenced(fence, connection -> {
            DispatchRoom room = DispatchRoom.read(connection, limits);
            List<String> limitedTypes = List.copyOf(room.room().keySet());
            // Each select reads in the order of the index tasks_due and the batch is updated through the
            // primary key: a join of the two would let the planner scan the whole table for a few hundred rows.
            StringBuilder sql = new StringBuilder("with general as (" + DUE + "and type <> all(?) " + DUE_ORDER + ")");
            for (int i = 0; i < limitedTypes.size(); i++) {
                sql.append(", limited").append(i).append(" as (").append(DUE).append("and type = ? ").append(DUE_ORDER)
                        .append(")");
            }
            sql.append(", due as (select id from (select * from general");
            for (int i = 0; i < limitedTypes.size(); i++) {
                sql.append(" union all select * from limited").append(i);
            }
            sql.append(") as any_type order by priority desc, run_at limit ?), "
                    + "moved as (update tasks set status = 'ENQUEUED', fence = ?, enqueues = enqueues + 1, updated_at = now() "
                    + "where id = any(array(select id from due)) and status in ('PENDING', 'FAILED') "
                    + "returning id, type, priority, run_at) "
                    + "select id, type from moved order by priority desc, run_at");
            try (PreparedStatement enqueue = connection.prepareStatement(sql.toString())) {
                int parameter = 1;
                enqueue.setArray(parameter++, connection.createArrayOf("text", room.excluded().toArray()));
                enqueue.setInt(parameter++, limit);
                for (String type : limitedTypes) {
                    enqueue.setString(parameter++, type);
                    enqueue.setInt(parameter++, Math.min(limit, room.room().get(type)));
                }
                enqueue.setInt(parameter++, limit);
                enqueue.setLong(parameter, fence.token());
                List<Enqueued> batch = new ArrayList<>();
                try (ResultSet moved = enqueue.executeQuery()) {
                    while (moved.next()) {
                        batch.add(new Enqueued(moved.getObject(1, UUID.class), moved.getString(2)));
                    }
                }
                if (!batch.isEmpty()) {
                    logDispatch(connection, fence, batch.size());
                }
                if (!limits.rated().isEmpty()) {
                    room.forgetOldStarts(connection);
                }
                return batch;
            }
        });
        // Committed: database.fenced() returns only after the commit.
        meters.moved(enqueued.stream().map(row -> new TransitionMeters.Moved(TaskStatus.ENQUEUED, row.type())).toList());
        return enqueued.stream().map(Enqueued::id).toList();
    }

    /** Whether any task of an unpaused type is due for dispatch (PENDING or FAILED, {@code run_at} passed). */
    public boolean anyDue() {
        return database.inConnection(connection -> {
            try (PreparedStatement due = connection.prepareStatement("select exists (select 1 from tasks "
                    + "where status in ('PENDING', 'FAILED') and run_at <= now() "
                    + "and type not in (select type from paused_types))"); ResultSet row = due.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        });
    }

    /** Records the batch in {@code dispatch_log} (same transaction); retention deletes old rows ({@link FinishedTasks}). */
    private static void logDispatch(Connection connection, FenceToken fence, int tasks) throws SQLException {
        try (PreparedStatement log = connection.prepareStatement(
                "insert into dispatch_log (token, holder, tasks) values (?, ?, ?)")) {
            log.setLong(1, fence.token());
            log.setString(2, fence.holder());
            log.setInt(3, tasks);
            log.executeUpdate();
        }
    }

    /** ENQUEUED → PROCESSING for one task: {@link #claim(Collection, String, Duration)} of one. */
    public Optional<Claim> claim(UUID id, String claimer, Duration lease) {
        return claim(List.of(id), claimer, lease).stream().findFirst();
    }

    /**
     * ENQUEUED → PROCESSING for the tasks a worker read, in one statement: each one's attempt number goes
     * up by one, its processing lease starts, and it gets a claim id of its own, {@code claimer/<uuid>}.
     * Tasks no longer ENQUEUED (cancelled, or claimed already through a message delivered twice) are left
     * out. Rows are locked in id order, so two claimers of overlapping batches wait for each other and
     * never deadlock. A first attempt's claim also records how long the task waited since its
     * submission, as PostgreSQL measures it.
     */
    public List<Claim> claim(Collection<UUID> ids, String claimer, Duration lease) {
        if (ids.isEmpty()) {
            return List.of();
        }
        record Claimed(Claim claim, double waitedSeconds) {
        }
        List<Claimed> claimed = database.inConnection(connection -> {
            // A rate-limited type's claims are its starts (DESIGN section 4, "Type limits"), recorded with them.
            List<String> rated = limits.rated();
            try (PreparedStatement claim = connection.prepareStatement(rated.isEmpty() ? CLAIM : CLAIM_RECORDING_STARTS)) {
                claim.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
                claim.setString(2, claimer);
                claim.setLong(3, lease.toMillis());
                if (!rated.isEmpty()) {
                    claim.setArray(4, connection.createArrayOf("text", rated.toArray()));
                }
                List<Claimed> rowsClaimed = new ArrayList<>();
                try (ResultSet row = claim.executeQuery()) {
                    while (row.next()) {
                        rowsClaimed.add(new Claimed(new Claim(row.getObject("id", UUID.class), row.getString("type"),
                                rows.object("payload", row), row.getInt("attempt"), row.getString("worker")),
                                row.getDouble("waited_seconds")));
                    }
                }
                return rowsClaimed;
            }
        });
        meters.moved(claimed.stream().map(row -> new TransitionMeters.Moved(TaskStatus.PROCESSING, row.claim().type()))
                .toList());
        claimed.stream().filter(row -> row.claim().attempt() == 1).forEach(row -> meters.waited(row.claim().type(),
                Duration.ofNanos(Math.round(row.waitedSeconds() * 1e9))));
        return claimed.stream().map(Claimed::claim).toList();
    }

    /** Extends a claim's processing lease; false if the claim is no longer the task's current one. */
    public boolean heartbeat(Claim claim, Duration lease) {
        return heartbeat(claim, lease, Duration.ZERO);
    }

    /**
     * {@link #heartbeat(Claim, Duration)} that waits at most {@code answerWithin} (zero: no limit) for
     * PostgreSQL's answer once it has a connection: a server or network that stopped answering makes it
     * fail instead of hang, and the connection is dropped. A statement time-out would not do: PostgreSQL
     * has to answer its cancel.
     *
     * @throws TaskStoreException if PostgreSQL failed or did not answer in time; the lease may or may not
     *         have been extended
     */
    public boolean heartbeat(Claim claim, Duration lease, Duration answerWithin) {
        return database.inConnection(connection -> {
            if (answerWithin.isPositive()) {
                // Agroal puts the pool's network time-out back when the connection returns to it.
                connection.setNetworkTimeout(Runnable::run, Math.toIntExact(Math.max(1, answerWithin.toMillis())));
            }
            try (PreparedStatement statement = connection.prepareStatement("update tasks set lease_until = now() "
                    + "+ ? * interval '1 millisecond', updated_at = now() "
                    + "where id = ? and status = 'PROCESSING' and attempt = ? and worker = ?")) {
                statement.setLong(1, lease.toMillis());
                bindClaim(statement, 2, claim);
                return statement.executeUpdate() > 0;
            }
        });
    }

    /** PROCESSING → SUCCEEDED for the claim's attempt, with the handler's result (or null). */
    public boolean complete(Claim claim, JsonNode result) {
        return !complete(List.of(new Completion(claim, result))).isEmpty();
    }

    /**
     * PROCESSING → SUCCEEDED for many attempts in one statement, each with its handler's result and each
     * only where the task still carries that attempt's number and claim id.
     *
     * @return the claim ids of the attempts that moved their task; the others' claims were no longer current
     */
    public Set<String> complete(List<Completion> done) {
        if (done.isEmpty()) {
            return Set.of();
        }
        // Rows are locked in id order, as claims lock them.
        List<Completion> ordered = done.stream().sorted(Comparator.comparing(completion -> completion.claim().taskId()))
                .toList();
        List<TransitionMeters.Moved> moved = new ArrayList<>();
        Set<String> completed = database.inConnection(connection -> {
            try (PreparedStatement complete = connection.prepareStatement("update tasks set status = 'SUCCEEDED', "
                    + "result = done.result::jsonb, lease_until = null, updated_at = now() "
                    + "from unnest(?::uuid[], ?::int[], ?::text[], ?::text[]) as done(id, attempt, worker, result) "
                    + "where tasks.id = done.id and tasks.status = 'PROCESSING' and tasks.attempt = done.attempt "
                    + "and tasks.worker = done.worker returning tasks.worker, tasks.type")) {
                complete.setArray(1, connection.createArrayOf("uuid",
                        ordered.stream().map(completion -> completion.claim().taskId()).toArray()));
                complete.setArray(2, connection.createArrayOf("int4",
                        ordered.stream().map(completion -> completion.claim().attempt()).toArray()));
                complete.setArray(3, connection.createArrayOf("text",
                        ordered.stream().map(completion -> completion.claim().claimId()).toArray()));
                complete.setArray(4, connection.createArrayOf("text",
                        ordered.stream().map(completion -> rows.write(completion.result())).toArray()));
                Set<String> claimIds = new HashSet<>();
                try (ResultSet row = complete.executeQuery()) {
                    while (row.next()) {
                        claimIds.add(row.getString(1));
                        moved.add(new TransitionMeters.Moved(TaskStatus.SUCCEEDED, row.getString(2)));
                    }
                }
                return claimIds;
            }
        });
        meters.moved(moved);
        return completed;
    }

    /**
     * PROCESSING → FAILED, due again after a backoff; or → DEAD when {@code permanent}, when it was the
     * last attempt, or when the deadline has passed.
     *
     * @return the status the task went to, or empty if the claim is no longer the task's current one
     */
    public Optional<TaskStatus> fail(Claim claim, String error, boolean permanent, Duration backoffBase,
            Duration backoffCap) {
        return counted(claim, database.inConnection(connection -> {
            try (PreparedStatement fail = connection.prepareStatement("update tasks set status = case when ? or "
                    + EXHAUSTED + " then 'DEAD' else 'FAILED' end, run_at = " + BACKOFF + ", last_error = ?, "
                    + "lease_until = null, updated_at = now() "
                    + "where id = ? and status = 'PROCESSING' and attempt = ? and worker = ? returning status")) {
                fail.setBoolean(1, permanent);
                fail.setLong(2, backoffCap.toMillis());
                fail.setLong(3, backoffBase.toMillis());
                fail.setString(4, error);
                bindClaim(fail, 5, claim);
                return firstStatus(fail);
            }
        }));
    }

    /**
     * PROCESSING → PENDING, due again after {@code delay}: the handler's "not ready, ask me later". It does
     * not count as an attempt. If the next poll would fall after the deadline the task is DEAD instead.
     *
     * @return the status the task went to, or empty if the claim is no longer the task's current one
     */
    public Optional<TaskStatus> later(Claim claim, Duration delay) {
        return counted(claim, database.inConnection(connection -> {
            try (PreparedStatement later = connection.prepareStatement("update tasks set status = case when "
                    + "deadline is not null and deadline < now() + ? * interval '1 millisecond' then 'DEAD' "
                    + "else 'PENDING' end, last_error = case when deadline is not null and deadline < now() + ? "
                    + "* interval '1 millisecond' then 'deadline passed while waiting to be polled again' "
                    + "else last_error end, attempt = attempt - 1, run_at = now() + ? * interval '1 millisecond', "
                    + "lease_until = null, updated_at = now() "
                    + "where id = ? and status = 'PROCESSING' and attempt = ? and worker = ? returning status")) {
                later.setLong(1, delay.toMillis());
                later.setLong(2, delay.toMillis());
                later.setLong(3, delay.toMillis());
                bindClaim(later, 4, claim);
                return firstStatus(later);
            }
        }));
    }

    /**
     * ENQUEUED for longer than {@code timeout} and not among {@code stillQueued} (the tasks whose messages
     * the queue holds) → PENDING: its message was lost (a crash between commit and push, or Redis lost the
     * stream). A task merely waiting in a long queue keeps its place. One fenced statement; rows another
     * transaction holds (a claim) are skipped, never waited for, so it cannot deadlock with one.
     *
     * @return how many tasks went back to PENDING
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public int requeueStaleEnqueued(FenceToken fence, Duration timeout, Collection<UUID> stillQueued) {
        List<TransitionMeters.Moved> requeued = database.fenced(fence, connection -> {
            try (PreparedStatement requeue = connection.prepareStatement("with stale as (select id from tasks "
                    + "where status = 'ENQUEUED' and updated_at < now() - ? * interval '1 millisecond' and id <> all(?) "
                    + "order by id for update skip locked) "
                    + "update tasks set status = 'PENDING', updated_at = now() "
                    + "where id = any(array(select id from stale)) and status = 'ENQUEUED' returning status, type")) {
                requeue.setLong(1, timeout.toMillis());
                requeue.setArray(2, connection.createArrayOf("uuid", stillQueued.toArray()));
                return movedRows(requeue);
            }
        });
        meters.moved(requeued);
        return requeued.size();
    }

    /**
     * PROCESSING past its lease (its worker died or stalled) → FAILED with a backoff, or DEAD if that was
     * the last attempt: the lapsed attempt counts. One fenced statement; rows another transaction holds (a
     * batch of successes being written, which locks its rows in another order) are skipped, never waited
     * for, so the two cannot deadlock; a skipped row whose write then fails is taken at the next run.
     *
     * @return how many tasks were recovered
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public int failExpiredLeases(FenceToken fence, Duration backoffBase, Duration backoffCap) {
        List<TransitionMeters.Moved> recovered = database.fenced(fence, connection -> {
            try (PreparedStatement recover = connection.prepareStatement("with expired as (select id from tasks "
                    + "where status = 'PROCESSING' and lease_until < now() order by id for update skip locked) "
                    + "update tasks set status = case when " + EXHAUSTED + " then 'DEAD' else 'FAILED' end, "
                    + "run_at = " + BACKOFF + ", "
                    + "last_error = 'processing lease expired: worker ' || coalesce(worker, '?') || ' stopped', "
                    + "lease_until = null, updated_at = now() where id = any(array(select id from expired)) "
                    + "and status = 'PROCESSING' and lease_until < now() returning status, type")) {
                recover.setLong(1, backoffCap.toMillis());
                recover.setLong(2, backoffBase.toMillis());
                return movedRows(recover);
            }
        });
        meters.moved(recovered);
        return recovered.size();
    }

    // ---- plumbing

    private static String isoText(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private Optional<Task> single(String sql, UUID id, TaskScope scope) {
        return database.inConnection(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, id);
                statement.setString(2, scope.owner());
                statement.setString(3, scope.owner());
                return readTasks(statement).stream().findFirst();
            }
        });
    }

    private static void bindClaim(PreparedStatement statement, int first, Claim claim) throws SQLException {
        statement.setObject(first, claim.taskId());
        statement.setInt(first + 1, claim.attempt());
        statement.setString(first + 2, claim.claimId());
    }

    /** Counts a single-row transition that won (its statement has committed: auto-commit). */
    private Optional<Task> counted(Optional<Task> moved) {
        moved.ifPresent(task -> meters.moved(task.status(), task.type()));
        return moved;
    }

    private Optional<TaskStatus> counted(Claim claim, Optional<TaskStatus> to) {
        to.ifPresent(status -> meters.moved(status, claim.type()));
        return to;
    }

    /** The rows a batch statement ({@code ... returning status, type}) moved. */
    private static List<TransitionMeters.Moved> movedRows(PreparedStatement statement) throws SQLException {
        List<TransitionMeters.Moved> moved = new ArrayList<>();
        try (ResultSet row = statement.executeQuery()) {
            while (row.next()) {
                moved.add(new TransitionMeters.Moved(TaskStatus.valueOf(row.getString(1)), row.getString(2)));
            }
        }
        return moved;
    }

    private static Optional<TaskStatus> firstStatus(PreparedStatement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            return row.next() ? Optional.of(TaskStatus.valueOf(row.getString(1))) : Optional.empty();
        }
    }

    private List<Task> readTasks(PreparedStatement statement) throws SQLException {
        List<Task> tasks = new ArrayList<>();
        try (ResultSet row = statement.executeQuery()) {
            while (row.next()) {
                tasks.add(rows.task(row));
            }
        }
        return tasks;
    }
}

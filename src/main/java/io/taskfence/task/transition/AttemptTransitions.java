package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.BACKOFF;
import static io.taskfence.task.transition.TransitionSql.CURRENT_CLAIM;
import static io.taskfence.task.transition.TransitionSql.EXHAUSTED;
import static io.taskfence.task.transition.TransitionSql.NOT_TIMED_OUT;
import static io.taskfence.task.transition.TransitionSql.bindClaim;
import static io.taskfence.task.transition.TransitionSql.movedRows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;

import io.taskfence.store.TaskDatabase;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.TaskHistory;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TasksEnded;
import io.taskfence.types.TypeLimits;

/**
 * A worker's transitions for one attempt of a task: the claim (ENQUEUED → PROCESSING), the heartbeats that
 * extend its lease, and its end (SUCCEEDED, FAILED, DEAD, or PENDING again when the handler asks to be polled
 * later). Every write after the claim names the claim ({@link TransitionSql#CURRENT_CLAIM}), so a worker whose
 * claim was cancelled, or taken over after its lease lapsed, changes nothing.
 */
@ApplicationScoped
public class AttemptTransitions {

    /**
     * ENQUEUED → PROCESSING for the ids in ?2, by claimer ?3 with a lease of ?4 ms; ?1: whether the claimer is a remote
     * worker, whose attempt PostgreSQL times out ({@code timeout_at}, the lease ending there too), where a replica
     * times out its own ({@code timeout_at} null).
     */
    private static final String CLAIMED = "with claimable as (select id, case when ?::boolean then now() "
            + "+ timeout_ms * interval '1 millisecond' end as timeout_at from tasks "
            + "where id = any(?) and status = 'ENQUEUED' order by id for update), "
            + "claimed as (update tasks set status = 'PROCESSING', attempt = attempt + 1, "
            + "worker = ? || '/' || gen_random_uuid(), "
            + "lease_until = least(now() + ? * interval '1 millisecond', claimable.timeout_at), "
            + "timeout_at = claimable.timeout_at, "
            + "fencing_token = fencing_token + 1, started_at = now(), updated_at = now(), progress = null, "
            + "progress_at = null from claimable "
            + "where tasks.id = claimable.id and tasks.status = 'ENQUEUED' "
            + "returning tasks.id, type, payload, attempt, worker, owner, concurrency_key, fencing_token, lease_until, "
            + "trace_parent, timeout_ms, extract(epoch from now() - created_at) as waited_seconds) ";
    /** The starts of the rate-limited types in the next parameter, recorded with the claim. */
    private static final String TYPE_STARTS = ", started as (insert into type_starts (type, at, tasks) "
            + "select type, now(), count(*) from claimed where type = any(?) group by type)";
    /** The starts of the groups of the types with a rate per key in the next parameter, recorded with the claim. */
    private static final String GROUP_STARTS = ", group_started as (insert into group_starts (type, owner, "
            + "concurrency_key, at, tasks) select type, coalesce(owner, ''), concurrency_key, now(), count(*) "
            + "from claimed where type = any(?) and concurrency_key is not null group by type, owner, concurrency_key)";

    private final TaskDatabase database;
    private final TaskRows rows;
    private final TransitionMeters meters;
    private final TypeLimits limits;
    private final Event<TasksEnded> ended;
    /** The claim, recording the starts the types' rates count: only a type with a rate (per key) pays for it. */
    private final String claimSql;

    AttemptTransitions(TaskDatabase database, TaskRows rows, TransitionMeters meters, TypeLimits limits,
            Event<TasksEnded> ended) {
        this.ended = ended;
        this.database = database;
        this.rows = rows;
        this.meters = meters;
        this.limits = limits;
        this.claimSql = CLAIMED + (limits.rated().isEmpty() ? "" : TYPE_STARTS)
                + (limits.ratedPerKey().isEmpty() ? "" : GROUP_STARTS) + " select * from claimed";
    }

    /**
     * ENQUEUED → PROCESSING for the tasks a worker read, in one statement: each one's attempt number goes
     * up by one, its processing lease starts, and it gets a claim id of its own, {@code claimer/<uuid>}.
     * Tasks no longer ENQUEUED (cancelled, or claimed already through a message delivered twice) are left
     * out. Rows are locked in id order, so two claimers of overlapping batches wait for each other and
     * never deadlock. A first attempt's claim also records how long the task waited since its
     * submission, as PostgreSQL measures it. For this replica's workers, which time out their attempts themselves.
     */
    public List<Claim> claim(Collection<UUID> ids, String claimer, Duration lease) {
        return claim(ids, claimer, lease, false);
    }

    /**
     * {@link #claim} for a remote worker: a task with a time-out gets its claim's end in PostgreSQL ({@code timeout_at}),
     * where the lease ends too: past it the claim's writes are refused and recovery fails the attempt "timed out".
     */
    public List<Claim> claimForRemote(Collection<UUID> ids, String claimer, Duration lease) {
        return claim(ids, claimer, lease, true);
    }

    private List<Claim> claim(Collection<UUID> ids, String claimer, Duration lease, boolean remote) {
        if (ids.isEmpty()) {
            return List.of();
        }
        record Claimed(Claim claim, double waitedSeconds) {
        }
        List<Claimed> claimed = database.inConnection(connection -> {
            // A rate-limited type's claims are its starts (DESIGN.md, "Configuration", "Type limits"), recorded with them.
            try (PreparedStatement claim = connection.prepareStatement(claimSql)) {
                claim.setBoolean(1, remote);
                claim.setArray(2, connection.createArrayOf("uuid", ids.toArray()));
                claim.setString(3, claimer);
                claim.setLong(4, lease.toMillis());
                int next = 5;
                for (List<String> types : List.of(limits.rated(), limits.ratedPerKey())) {
                    if (!types.isEmpty()) {
                        claim.setArray(next++, connection.createArrayOf("text", types.toArray()));
                    }
                }
                List<Claimed> rowsClaimed = new ArrayList<>();
                try (ResultSet row = claim.executeQuery()) {
                    while (row.next()) {
                        rowsClaimed.add(new Claimed(new Claim(row.getObject("id", UUID.class),
                                row.getString("type"), rows.object("payload", row), row.getInt("attempt"),
                                row.getString("worker"), row.getString("owner"), row.getLong("fencing_token"),
                                row.getObject("lease_until", OffsetDateTime.class).toInstant(), row.getString("trace_parent"),
                                timeout(row.getObject("timeout_ms", Long.class))), row.getDouble("waited_seconds")));
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

    private static Duration timeout(Long millis) {
        return millis == null ? null : Duration.ofMillis(millis);
    }

    /**
     * Extends a claim's processing lease (not past a remote claim's time-out); false if the claim is no longer the task's
     * current one, or has timed out. Waits at
     * most {@code answerWithin} (zero: no limit) for PostgreSQL's answer once it has a connection: a server or
     * network that stopped answering makes it fail instead of hang, and the connection is dropped. A statement
     * time-out would not do: PostgreSQL has to answer its cancel.
     *
     * @throws TaskStoreException if PostgreSQL failed or did not answer in time; the lease may or may not
     *         have been extended
     */
    public boolean heartbeat(Claim claim, Duration lease, Duration answerWithin) {
        return extend(claim, lease, answerWithin).isPresent();
    }

    /**
     * {@link #heartbeat}, answering the lease's new end on PostgreSQL's clock; empty if the claim is no longer the
     * task's current one.
     */
    public Optional<Instant> extend(Claim claim, Duration lease, Duration answerWithin) {
        return database.inConnection(connection -> {
            // Agroal does not put a connection's network time-out back when it returns to the pool: set for this
            // statement only, or the next borrower's statements (a dispatch, a success batch) are cut at this bound.
            int poolTimeout = connection.getNetworkTimeout();
            if (answerWithin.isPositive()) {
                connection.setNetworkTimeout(Runnable::run, Math.toIntExact(Math.max(1, answerWithin.toMillis())));
            }
            try (PreparedStatement statement = connection.prepareStatement("update tasks set lease_until = least(now() "
                    + "+ ? * interval '1 millisecond', timeout_at), updated_at = now() where " + CURRENT_CLAIM
                    + " returning lease_until")) {
                statement.setLong(1, lease.toMillis());
                bindClaim(statement, 2, claim);
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() ? Optional.of(row.getObject(1, OffsetDateTime.class).toInstant()) : Optional.empty();
                }
            } finally {
                if (answerWithin.isPositive() && !connection.isClosed()) {
                    connection.setNetworkTimeout(Runnable::run, poolTimeout);
                }
            }
        });
    }

    /**
     * PROCESSING → SUCCEEDED for many attempts in one statement, each with its handler's result and each
     * only where the task still carries that attempt's number and claim id, and the claim has not timed out.
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
        List<UUID> succeeded = new ArrayList<>();
        boolean[] followUps = {false};
        Set<String> completed = database.inConnection(connection -> {
            // The task leaves tasks_in_flight in the same statement (the happy path's bookkeeping, DESIGN.md, "Storage").
            try (PreparedStatement complete = connection.prepareStatement("with succeeded as (update tasks "
                    + "set status = 'SUCCEEDED', result = done.result::jsonb, lease_until = null, updated_at = now() "
                    + "from unnest(?::uuid[], ?::int[], ?::text[], ?::text[]) as done(id, attempt, worker, result) "
                    + "where tasks.id = done.id and tasks.status = 'PROCESSING' and tasks.attempt = done.attempt "
                    + "and tasks.worker = done.worker and " + NOT_TIMED_OUT + " returning tasks.id, tasks.worker, tasks.type, "
                    + "tasks.has_dependents is true or tasks.callback is not null as follow_ups), "
                    + "landed as (delete from tasks_in_flight where task_id = any(array(select id from succeeded))) "
                    + "select worker, type, id, follow_ups from succeeded")) {
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
                        succeeded.add(row.getObject(3, UUID.class));
                        followUps[0] |= row.getBoolean(4);
                    }
                }
                return claimIds;
            }
        });
        meters.moved(moved);
        if (!succeeded.isEmpty()) {
            ended.fire(new TasksEnded(succeeded, followUps[0]));
        }
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
        return failed(claim, error, permanent, BACKOFF, backoffCap.toMillis(), backoffBase.toMillis());
    }

    /**
     * {@link #fail}, retried after {@code delay} (what the worker asked for) instead of a backoff: FAILED and due
     * then, or DEAD when it was the last attempt or the deadline has passed.
     */
    public Optional<TaskStatus> failRetryingAfter(Claim claim, String error, Duration delay) {
        return failed(claim, error, false, "now() + ?::bigint * interval '1 millisecond'", delay.toMillis());
    }

    /** The failure's update, its {@code runAt} expression bound to {@code runAtValues}. */
    private Optional<TaskStatus> failed(Claim claim, String error, boolean permanent, String runAt, long... runAtValues) {
        return counted(claim, database.inConnection(connection -> {
            try (PreparedStatement fail = connection.prepareStatement("update tasks set status = case when ? or "
                    + EXHAUSTED + " then 'DEAD' else 'FAILED' end, " + TaskHistory.IMPLIED_EVENTS_CLEARED + ", "
                    + "run_at = " + runAt + ", last_error = ?, "
                    + "lease_until = null, updated_at = now() where " + CURRENT_CLAIM + " returning status, type")) {
                int parameter = 1;
                fail.setBoolean(parameter++, permanent);
                for (long value : runAtValues) {
                    fail.setLong(parameter++, value);
                }
                fail.setString(parameter++, error);
                bindClaim(fail, parameter, claim);
                return movedRows(fail);
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
            try (PreparedStatement later = connection.prepareStatement("update tasks set "
                    + TaskHistory.IMPLIED_EVENTS_CLEARED + ", status = case when "
                    + "deadline is not null and deadline < now() + ? * interval '1 millisecond' then 'DEAD' "
                    + "else 'PENDING' end, last_error = case when deadline is not null and deadline < now() + ? "
                    + "* interval '1 millisecond' then 'deadline passed while waiting to be polled again' "
                    + "else last_error end, attempt = attempt - 1, run_at = now() + ? * interval '1 millisecond', "
                    + "lease_until = null, updated_at = now() where " + CURRENT_CLAIM + " returning status, type")) {
                later.setLong(1, delay.toMillis());
                later.setLong(2, delay.toMillis());
                later.setLong(3, delay.toMillis());
                bindClaim(later, 4, claim);
                return movedRows(later);
            }
        }));
    }

    /**
     * Counts the move a single-task statement made on the claim's task, if it made one (the type comes from the row),
     * and tells of its end if it ended there.
     */
    private Optional<TaskStatus> counted(Claim claim, List<TransitionMeters.Moved> moved) {
        meters.moved(moved);
        Optional<TaskStatus> to = moved.stream().findFirst().map(TransitionMeters.Moved::to);
        if (to.filter(TaskStatus.DEAD::equals).isPresent()) {
            ended.fire(new TasksEnded(List.of(claim.taskId())));
        }
        return to;
    }
}

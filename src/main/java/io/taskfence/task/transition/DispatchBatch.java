package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.DUE;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.taskfence.TaskfenceConfig;
import io.taskfence.keys.KeyDirectory;
import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.store.TaskDatabase;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.TaskStatus;
import io.taskfence.types.DispatchRoom;
import io.taskfence.types.RemoteTypes;
import io.taskfence.types.TypeLimits;

/**
 * The dispatcher's transition: due PENDING and FAILED tasks → ENQUEUED, a batch at a time, in one fenced
 * transaction (DESIGN.md, "Fencing (PostgreSQL)"), so that only the current lock holder moves tasks.
 */
@ApplicationScoped
public class DispatchBatch {

    private static final Logger LOG = Logger.getLogger(DispatchBatch.class);
    private static final Duration SKIP_HELD_FOR = Duration.ofMinutes(1);

    private final TaskDatabase database;
    private final TransitionMeters meters;
    private final TypeLimits limits;
    private final RemoteTypes remote;
    /** The keys' weights ({@code taskfence.auth.keys.<name>.weight}, or a stored key's): their dispatch shares. */
    private final KeyDirectory keys;
    /** Batches this replica's dispatch ran: the shift of the owners' rotation ({@link DueSelection#of}). */
    private final AtomicLong batches = new AtomicLong();
    /**
     * For each type with {@code max-per-key}, each owner's last concurrency key a batch served: where the next
     * batch's walk of its groups starts ({@link DueSelection#of}). Only the lock's holder dispatches, one batch at
     * a time; a replica that takes the lock over starts from the first key.
     */
    private final Map<String, Map<String, String>> groupCursors = new ConcurrentHashMap<>();
    private final Duration jobLockTimeout;
    /**
     * Until when ({@link System#nanoTime}) batches skip the rows other transactions hold: for {@link #SKIP_HELD_FOR}
     * after a batch waited out the lock time-out on one, so that a request holding a due task's row costs dispatch one
     * wait a minute, not one a batch.
     */
    private volatile long skipHeldUntil = System.nanoTime();

    DispatchBatch(TaskDatabase database, TransitionMeters meters, TypeLimits limits, RemoteTypes remote,
            TaskfenceConfig config, KeyDirectory keys) {
        this.jobLockTimeout = config.jobLockTimeout();
        this.remote = remote;
        this.database = database;
        this.meters = meters;
        this.limits = limits;
        this.keys = keys;
    }

    /**
     * Due PENDING and FAILED → ENQUEUED, at most {@code limit}, shared between the owners that have due tasks in
     * turns by their weights, each owner's highest priority then oldest {@code run_at} first, in one fenced
     * transaction. Paused types are left out, and a limited type gets at most the room its limits leave ({@link
     * DispatchRoom}): its due tasks are read by a select of their own, limited to that room, beside the select
     * of all other types, so that a type at its limit never takes the batch's places from the others. A remote
     * type is read the same way, limited also by the room its stream has.
     *
     * @param streamRoom for each remote type, how many more tasks its stream may hold; a remote type missing from
     *        it gets none
     * @return the ids moved and how many due rows the batch used up
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was moved
     */
    public Batch enqueueDue(FenceToken fence, int limit, Map<String, Integer> streamRoom) {
        return enqueueDue(fence, limit, streamRoom, true);
    }

    /**
     * {@link #enqueueDue}, of the remote types alone: while the replicas' stream is full, its types take no place.
     */
    public Batch enqueueRemoteDue(FenceToken fence, int limit, Map<String, Integer> streamRoom) {
        return enqueueDue(fence, limit, streamRoom, false);
    }

    private Batch enqueueDue(FenceToken fence, int limit, Map<String, Integer> streamRoom, boolean localTypes) {
        boolean skipHeld = System.nanoTime() - skipHeldUntil < 0;
        try {
            return enqueueDue(fence, limit, streamRoom, localTypes, skipHeld);
        } catch (TaskStoreException e) {
            if (skipHeld || !e.lockTimedOut()) {
                throw e;
            }
            // A request holds a due task's row (taskfence.job-lock-timeout ran out): this batch and those of the next
            // while lock the rows they move with skip locked, which costs a WAL record per task, rather than wait.
            LOG.infof("dispatch waited %d ms for a due task's row that a request holds; it skips rows others hold for %d s",
                    jobLockTimeout.toMillis(), SKIP_HELD_FOR.toSeconds());
            skipHeldUntil = System.nanoTime() + SKIP_HELD_FOR.toNanos();
            return enqueueDue(fence, limit, streamRoom, localTypes, true);
        }
    }

    private Batch enqueueDue(FenceToken fence, int limit, Map<String, Integer> streamRoom, boolean localTypes,
            boolean skipHeld) {
        Map<String, Integer> remoteRoom = new TreeMap<>();
        remote.names().forEach(type -> remoteRoom.put(type, Math.max(0, streamRoom.getOrDefault(type, 0))));
        record Enqueued(UUID id, String type, String owner, String concurrencyKey) {
        }
        record Moved(int taken, List<Enqueued> enqueued) {
        }
        Moved moved = database.fenced(fence, connection -> {
            DispatchRoom read = DispatchRoom.read(connection, limits, remoteRoom);
            DispatchRoom room = localTypes ? read : read.only(remote.names());
            // Each owner's select must walk tasks_due_owner_order in order and stop at its limit. Without fresh
            // statistics (a backlog just loaded, before autovacuum's analyze) the planner guesses a few rows an
            // owner and reads all of its due rows through a bitmap scan, then sorts them: 80 ms a batch instead
            // of 1.5 ms with 100,000 due (DESIGN.md, "Dispatch", "Fair shares").
            // And the planner's estimates for the concurrency groups' lateral walks (DueSelection), which stop at
            // their limits, made PostgreSQL compile the statement (JIT): 320 ms a batch, for 110 ms of work.
            try (Statement plan = connection.createStatement()) {
                plan.execute("set local enable_bitmapscan = off");
                plan.execute("set local jit = off");
            }
            DueSelection due = DueSelection.of(connection, room, limits, keys.weights(), batches.getAndIncrement(), limit,
                    groupCursors);
            // Each task's row is locked (by the update) before its tasks_due row (by the delete that reads the
            // update's output), the order in which the triggers of every other transition take them: a cancel
            // racing this batch waits for it, or it for the cancel, never both. The batch is updated through the
            // primary key: a join of the due rows and the tasks would let the planner scan the whole table.
            String sql = "with recursive " + due.sql() + ", moved as (update tasks set status = 'ENQUEUED', fence = ?, "
                    + "enqueues = enqueues + 1, enqueued_at = now(), updated_at = now() "
                    + "where id = any(array(select task_id from due)) and " + DUE + (skipHeld ? " and id = any(array("
                            + "select id from tasks where id = any(array(select task_id from due)) and " + DUE
                            + " for update skip locked))" : "") + " returning id, type, owner, concurrency_key), "
                    + "taken as (delete from tasks_due where task_id in (select id from moved)), "
                    + "in_flight as (insert into tasks_in_flight (task_id, type, owner, concurrency_key) "
                    + "select id, type, coalesce(owner, ''), concurrency_key from moved on conflict (task_id) do nothing) "
                    + "select due.task_id, moved.type, coalesce(moved.owner, ''), moved.concurrency_key "
                    + "from due left join moved on moved.id = due.task_id "
                    + "order by due.turn, due.rotation, due.priority desc, due.run_at";
            try (PreparedStatement enqueue = connection.prepareStatement(sql)) {
                enqueue.setLong(due.bind(enqueue, 1), fence.token());
                List<Enqueued> batch = new ArrayList<>();
                List<UUID> notMoved = new ArrayList<>();
                int taken = 0;
                try (ResultSet row = enqueue.executeQuery()) {
                    while (row.next()) {
                        taken++;
                        UUID id = row.getObject(1, UUID.class);
                        if (row.getString(2) != null) {
                            batch.add(new Enqueued(id, row.getString(2), row.getString(3), row.getString(4)));
                        } else {
                            notMoved.add(id);
                        }
                    }
                }
                if (!notMoved.isEmpty()) {
                    forgetStaleDueRows(connection, notMoved);
                }
                if (!batch.isEmpty()) {
                    logDispatch(connection, fence, batch.size());
                }
                if (!limits.rated().isEmpty() || !limits.ratedPerKey().isEmpty()) {
                    room.forgetOldStarts(connection, limits);
                }
                return new Moved(taken, batch);
            }
        });
        // Committed: database.fenced() returns only after the commit. The next batch walks each owner's groups on
        // from the last key this one served.
        moved.enqueued().stream().filter(row -> row.concurrencyKey() != null && limits.of(row.type()).grouped())
                .collect(Collectors.groupingBy(Enqueued::type, Collectors.groupingBy(Enqueued::owner,
                        Collectors.mapping(Enqueued::concurrencyKey, Collectors.toList()))))
                .forEach((type, owners) -> owners.forEach((owner, keys) -> {
                    Map<String, String> cursors = groupCursors.computeIfAbsent(type, any -> new ConcurrentHashMap<>());
                    cursors.put(owner, lastReached(cursors.getOrDefault(owner, ""), keys));
                }));
        meters.moved(moved.enqueued().stream().map(row -> new TransitionMeters.Moved(TaskStatus.ENQUEUED, row.type()))
                .toList());
        // Asked once per type: a type this replica does not know yet (declared a moment ago) makes it read the table.
        Set<String> remoteTypes = moved.enqueued().stream().map(Enqueued::type).distinct().filter(remote::contains)
                .collect(Collectors.toSet());
        Map<String, List<UUID>> toRemote = moved.enqueued().stream().filter(row -> remoteTypes.contains(row.type()))
                .collect(Collectors.groupingBy(Enqueued::type, TreeMap::new, Collectors.mapping(Enqueued::id,
                        Collectors.toList())));
        return new Batch(moved.enqueued().stream().filter(row -> !remoteTypes.contains(row.type())).map(Enqueued::id)
                .toList(), toRemote, moved.taken());
    }

    /**
     * Of the keys a batch served, the one its walk reached last: the walk goes from after {@code cursor} to the
     * greatest key, then from the least up to {@code cursor}.
     */
    private static String lastReached(String cursor, List<String> served) {
        Comparator<String> order = Comparator.naturalOrder();
        return served.stream().filter(key -> key.compareTo(cursor) > 0).max(order)
                .orElseGet(() -> served.stream().max(order).orElse(cursor));
    }

    /**
     * What one batch did.
     *
     * @param enqueued the ids moved to ENQUEUED for this service's workers, in the order to push them to the queue
     * @param remote the ids moved to ENQUEUED of each remote type, in the order to push them to its stream
     * @param taken how many due rows it found, those of tasks cancelled meanwhile or left stale by SQL included:
     *        fewer than the batch's limit means none was left due
     */
    public record Batch(List<UUID> enqueued, Map<String, List<UUID>> remote, int taken) {

        /** A batch that took nothing. */
        public static final Batch NONE = new Batch(List.of(), Map.of(), 0);
    }

    /** Whether any task of an unpaused type is due for dispatch. */
    public boolean anyDue() {
        return database.inConnection(connection -> {
            try (PreparedStatement due = connection.prepareStatement("select exists (select 1 from tasks_due "
                    + "where run_at <= now() and type not in (select type from paused_types))");
                    ResultSet row = due.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        });
    }

    /**
     * Deletes the due rows the batch found but could not move whose task is not waiting, or gone: only SQL by hand
     * leaves such rows (DESIGN.md, "Storage"), and at the head of the due order they would take every batch's
     * places. The task's row is locked first, as every transition does, and checked again under the lock; a task
     * that still waits (a cancel was under way and rolled back) keeps its row.
     */
    private static void forgetStaleDueRows(Connection connection, List<UUID> ids) throws SQLException {
        try (PreparedStatement forget = connection.prepareStatement("with settled as (select id from tasks "
                + "where id = any(?) and status not in ('PENDING', 'FAILED') order by id for update), "
                + "gone as (select task_id from unnest(?::uuid[]) as found(task_id) "
                + "where not exists (select 1 from tasks where id = task_id)) "
                + "delete from tasks_due where task_id in (select id from settled union all select task_id from gone)")) {
            Object[] array = ids.toArray();
            forget.setArray(1, connection.createArrayOf("uuid", array));
            forget.setArray(2, connection.createArrayOf("uuid", array));
            forget.executeUpdate();
        }
    }

    /** Records the batch in {@code dispatch_log} (same transaction); retention deletes old rows. */
    private static void logDispatch(Connection connection, FenceToken fence, int tasks) throws SQLException {
        try (PreparedStatement log = connection.prepareStatement(
                "insert into dispatch_log (token, holder, tasks) values (?, ?, ?)")) {
            log.setLong(1, fence.token());
            log.setString(2, fence.holder());
            log.setInt(3, tasks);
            log.executeUpdate();
        }
    }
}

package io.taskfence.chaos;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import io.taskfence.chaos.InvariantChecker.Event;
import io.taskfence.testing.ReplicaCluster;

/**
 * Judges the follow-ups of a chaos run once it drained (DESIGN.md, "Dependencies", "Batches", "Callbacks",
 * "Follow-ups"), from the table, every task's history and what the {@link CallbackReceiver} got: each dependent
 * released or cancelled once, as its dependencies' first ends say; each batch's then task made once and released
 * once; one callback task an end of a task with a callback; and no follow-up left undone.
 */
final class FollowUpChecker {

    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "DEAD", "CANCELLED");
    private static final Set<String> FAILED = Set.of("DEAD", "CANCELLED");
    private static final int EXAMPLES = 8;

    /** A dependent: its row's status and policy, and the tasks it depends on with whether each edge is resolved. */
    private record Dependent(UUID id, String status, String policy, Map<UUID, Boolean> edges) {
    }

    private record Batch(UUID id, UUID thenTask, String thenStatus, boolean open, boolean completed,
            long unfinishedItems) {
    }

    /** What a callback task's payload says ended: the view's task id, status and updatedAt. */
    private record Told(UUID task, String status, Instant updatedAt, String callbackStatus, String receiverKey) {
    }

    private final ReplicaCluster cluster;
    private final Map<UUID, List<Event>> history;
    private final List<String> examples = new ArrayList<>();

    FollowUpChecker(ReplicaCluster cluster, Map<UUID, List<Event>> history) {
        this.cluster = cluster;
        this.history = history;
    }

    /** Rows left in {@code task_follow_ups}: ends whose follow-ups the job has not finished. */
    static long followUpsLeft(Connection db) throws SQLException {
        try (PreparedStatement query = db.prepareStatement("select count(*) from task_follow_ups");
                ResultSet row = query.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    FollowUpCounts check(Submissions submissions, CallbackReceiver receiver) throws SQLException {
        try (Connection db = cluster.database()) {
            long[] dependents = dependents(db);
            long[] thens = thenTasks(db, submissions.thenTasks());
            long[] callbacks = callbacks(db, receiver);
            Map<String, Long> callbackStates = callbackStates(db);
            return new FollowUpCounts(dependents[0], dependents[1], dependents[2], dependents[3], dependents[4],
                    dependents[5], thens[0], thens[1], thens[2], thens[3], thens[4], callbacks[0],
                    callbackStates.values().stream().mapToLong(Long::longValue).sum(), callbacks[1], callbacks[2],
                    callbackStates, callbacks[3], receiver.posts(), receiver.ends().size(), followUpsLeft(db),
                    List.copyOf(examples));
        }
    }

    /**
     * Every dependent's release or cancel. The first end of a dependency is the one that resolves its edges (a
     * task's follow-ups are worked in the order it ended), and every structure of the load is made by one request,
     * so its dependencies had not ended when their edges were inserted.
     *
     * @return dependents, released, cancelled while WAITING, never released, released twice, run although a
     *     dependency failed
     */
    private long[] dependents(Connection db) throws SQLException {
        long released = 0;
        long cancelledWaiting = 0;
        long neverReleased = 0;
        long releasedTwice = 0;
        long ranDespiteFailure = 0;
        Map<UUID, Dependent> dependents = readDependents(db);
        for (Dependent dependent : dependents.values()) {
            long releases = count(dependent.id(), "WAITING", "PENDING");
            long cancels = count(dependent.id(), "WAITING", "CANCELLED");
            released += releases > 0 ? 1 : 0;
            cancelledWaiting += cancels > 0 ? 1 : 0;
            Optional<UUID> unresolved = dependent.edges().entrySet().stream()
                    .filter(edge -> !edge.getValue() && lastStatus(edge.getKey()).filter(TERMINAL::contains).isPresent())
                    .map(Map.Entry::getKey).findFirst();
            if ("WAITING".equals(dependent.status()) || unresolved.isPresent()) {
                neverReleased++;
                example(dependent.id() + " " + dependent.status() + " never released"
                        + unresolved.map(d -> ", its edge to ended " + d + " unresolved").orElse(""));
            }
            if (releases > 1 || releases > 0 && cancels > 0) {
                releasedTwice++;
                example(dependent.id() + " left WAITING " + releases + " times to PENDING, " + cancels
                        + " to CANCELLED");
            }
            Optional<UUID> failed = dependent.edges().keySet().stream()
                    .filter(d -> firstEnd(d).filter(FAILED::contains).isPresent()).findFirst();
            if ("cancel".equals(dependent.policy()) && releases > 0 && failed.isPresent()) {
                ranDespiteFailure++;
                example(dependent.id() + " released although its dependency " + failed.get() + " first ended "
                        + firstEnd(failed.get()).orElseThrow());
            }
        }
        return new long[] {dependents.size(), released, cancelledWaiting, neverReleased, releasedTwice,
            ranDespiteFailure};
    }

    private static Map<UUID, Dependent> readDependents(Connection db) throws SQLException {
        Map<UUID, Dependent> dependents = new HashMap<>();
        try (PreparedStatement query = db.prepareStatement("select t.id, t.status, t.on_dependency_failure, "
                + "e.depends_on, e.resolved from task_dependencies e join tasks t on t.id = e.task_id");
                ResultSet row = query.executeQuery()) {
            while (row.next()) {
                UUID id = row.getObject(1, UUID.class);
                String status = row.getString(2);
                String policy = row.getString(3);
                dependents.computeIfAbsent(id, d -> new Dependent(d, status, policy, new HashMap<>())).edges()
                        .put(row.getObject(4, UUID.class), row.getBoolean(5));
            }
        }
        return dependents;
    }

    /**
     * Every batch's then task, and the then tasks the clients were shown (by key): made once, released once.
     *
     * @return batches, then tasks missing, made twice, never released, released twice
     */
    private long[] thenTasks(Connection db, Map<String, UUID> shown) throws SQLException {
        long missing = 0;
        long madeTwice = 0;
        long neverReleased = 0;
        long releasedTwice = 0;
        List<Batch> batches = readBatches(db);
        Map<UUID, Long> batchesOfThen = new HashMap<>();
        for (Batch batch : batches) {
            batchesOfThen.merge(batch.thenTask(), 1L, Long::sum);
            if (batch.thenStatus() == null) {
                missing++;
                example("batch " + batch.id() + ": no row for its then task " + batch.thenTask());
                continue;
            }
            boolean allEnded = !batch.open() && batch.unfinishedItems() == 0;
            if ("WAITING".equals(batch.thenStatus()) || allEnded && !batch.completed()) {
                neverReleased++;
                example("batch " + batch.id() + (batch.completed() ? " complete" : " incomplete") + ", then task "
                        + batch.thenTask() + " " + batch.thenStatus());
            }
            long releases = count(batch.thenTask(), "WAITING", "PENDING");
            if (releases > 1 || releases > 0 && count(batch.thenTask(), "WAITING", "CANCELLED") > 0) {
                releasedTwice++;
                example("then task " + batch.thenTask() + " released " + releases + " times (or also cancelled)");
            }
        }
        for (Map.Entry<UUID, Long> then : batchesOfThen.entrySet()) {
            if (then.getValue() > 1) {
                madeTwice++;
                example("then task " + then.getKey() + " has " + then.getValue() + " batches");
            }
        }
        for (Map.Entry<String, Long> key : tasksHoldingKeys(db, shown.keySet()).entrySet()) {
            if (key.getValue() == 0) {
                missing++;
                example("then key " + key.getKey() + " (task " + shown.get(key.getKey()) + "): no task holds it");
            } else if (key.getValue() > 1) {
                madeTwice++;
                example("then key " + key.getKey() + " held by " + key.getValue() + " tasks");
            }
        }
        return new long[] {batches.size(), missing, madeTwice, neverReleased, releasedTwice};
    }

    private static List<Batch> readBatches(Connection db) throws SQLException {
        List<Batch> batches = new ArrayList<>();
        try (PreparedStatement query = db.prepareStatement("select b.id, b.then_task_id, t.status, b.open, "
                + "b.completed_at is not null, (select count(*) from tasks i where i.batch_id = b.id "
                + "and i.status not in ('SUCCEEDED', 'DEAD', 'CANCELLED')) "
                + "from batches b left join tasks t on t.id = b.then_task_id");
                ResultSet row = query.executeQuery()) {
            while (row.next()) {
                batches.add(new Batch(row.getObject(1, UUID.class), row.getObject(2, UUID.class), row.getString(3),
                        row.getBoolean(4), row.getBoolean(5), row.getLong(6)));
            }
        }
        return batches;
    }

    /** How many tasks hold each of {@code keys} as their idempotency key (0 for none). */
    private static Map<String, Long> tasksHoldingKeys(Connection db, Set<String> keys) throws SQLException {
        Map<String, Long> holding = new TreeMap<>();
        keys.forEach(key -> holding.put(key, 0L));
        try (PreparedStatement query = db.prepareStatement("select idempotency_key, count(*) from tasks "
                + "where idempotency_key = any(?) group by idempotency_key")) {
            Array array = db.createArrayOf("text", keys.toArray());
            query.setArray(1, array);
            try (ResultSet row = query.executeQuery()) {
                while (row.next()) {
                    holding.put(row.getString(1), row.getLong(2));
                }
            }
        }
        return holding;
    }

    /**
     * Each end of a task with a callback against the callback tasks telling it: matched one to one by the view's
     * status and updatedAt (the end's event is at the row's updated_at, which the trigger put in the view).
     *
     * @return ends, lost (an end no callback tells), twice (a callback beyond one an end, or telling none), and
     *     callbacks SUCCEEDED whose end the receiver never got
     */
    private long[] callbacks(Connection db, CallbackReceiver receiver) throws SQLException {
        Map<UUID, List<String>> told = new HashMap<>();
        long notReceived = 0;
        Set<String> received = receiver.ends();
        for (Told callback : readCallbacks(db)) {
            told.computeIfAbsent(callback.task(), t -> new ArrayList<>()).add(callback.status() + "@"
                    + callback.updatedAt());
            if ("SUCCEEDED".equals(callback.callbackStatus()) && !received.contains(callback.receiverKey())) {
                notReceived++;
                example("callback of " + callback.receiverKey() + " SUCCEEDED, never received");
            }
        }
        long ends = 0;
        long lost = 0;
        for (UUID task : tasksWithCallback(db)) {
            List<String> unmatched = told.getOrDefault(task, new ArrayList<>());
            told.remove(task);
            for (Event end : ends(task)) {
                ends++;
                if (!unmatched.remove(end.to() + "@" + end.at())) {
                    lost++;
                    example(task + " ended " + end.to() + " at " + end.at() + ": no callback task");
                }
            }
            if (!unmatched.isEmpty()) {
                told.put(task, unmatched);
            }
        }
        long twice = told.values().stream().mapToLong(List::size).sum();
        told.forEach((task, extra) -> example(task + ": callback tasks telling no end of it, or twice " + extra));
        return new long[] {ends, lost, twice, notReceived};
    }

    private static List<Told> readCallbacks(Connection db) throws SQLException {
        List<Told> told = new ArrayList<>();
        try (PreparedStatement query = db.prepareStatement("select payload -> 'task' ->> 'id', "
                + "payload -> 'task' ->> 'status', payload -> 'task' ->> 'updatedAt', status from tasks "
                + "where type = 'callback'"); ResultSet row = query.executeQuery()) {
            while (row.next()) {
                told.add(new Told(UUID.fromString(row.getString(1)), row.getString(2), Instant.parse(row.getString(3)),
                        row.getString(4), CallbackReceiver.end(row.getString(1), row.getString(2), row.getString(3))));
            }
        }
        return told;
    }

    private static List<UUID> tasksWithCallback(Connection db) throws SQLException {
        List<UUID> tasks = new ArrayList<>();
        try (PreparedStatement query = db.prepareStatement("select id from tasks where callback is not null");
                ResultSet row = query.executeQuery()) {
            while (row.next()) {
                tasks.add(row.getObject(1, UUID.class));
            }
        }
        return tasks;
    }

    private static Map<String, Long> callbackStates(Connection db) throws SQLException {
        Map<String, Long> states = new TreeMap<>();
        try (PreparedStatement query = db.prepareStatement("select status, count(*) from tasks where type = 'callback' "
                + "group by status"); ResultSet row = query.executeQuery()) {
            while (row.next()) {
                states.put(row.getString(1), row.getLong(2));
            }
        }
        return states;
    }

    /** A task's ends: its events into SUCCEEDED, DEAD or CANCELLED. */
    private List<Event> ends(UUID task) {
        return history.getOrDefault(task, List.of()).stream()
                .filter(event -> event.from() != null && TERMINAL.contains(event.to())).toList();
    }

    private Optional<String> firstEnd(UUID task) {
        return ends(task).stream().findFirst().map(Event::to);
    }

    private Optional<String> lastStatus(UUID task) {
        List<Event> events = history.getOrDefault(task, List.of());
        return events.isEmpty() ? Optional.empty() : Optional.of(events.getLast().to());
    }

    private long count(UUID task, String from, String to) {
        return history.getOrDefault(task, List.of()).stream()
                .filter(event -> from.equals(event.from()) && to.equals(event.to())).count();
    }

    private void example(String problem) {
        if (examples.size() < EXAMPLES) {
            examples.add(problem);
        }
    }
}

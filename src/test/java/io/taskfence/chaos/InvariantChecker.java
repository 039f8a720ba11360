package io.taskfence.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import io.taskfence.testing.ReplicaCluster;

/**
 * Reads what a chaos run left (the table, every task's history in {@code task_events}, {@code dispatch_log})
 * and judges it against what the clients were told ({@link Submissions}). Run after the load stopped and
 * every task drained.
 */
final class InvariantChecker {

    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "DEAD", "CANCELLED");
    /** The edges of DESIGN.md, "Task lifecycle" with how each changes the attempt: +1, -1, 0, or "=0" (set to zero). */
    private static final Map<String, String> EDGES = Map.ofEntries(
            Map.entry("PENDING->ENQUEUED", "0"), Map.entry("FAILED->ENQUEUED", "0"),
            Map.entry("ENQUEUED->PROCESSING", "+1"), Map.entry("ENQUEUED->PENDING", "0"),
            Map.entry("PROCESSING->SUCCEEDED", "0"), Map.entry("PROCESSING->FAILED", "0"),
            Map.entry("PROCESSING->DEAD", "0"), Map.entry("PROCESSING->PENDING", "-1"),
            Map.entry("PENDING->CANCELLED", "0"), Map.entry("ENQUEUED->CANCELLED", "0"),
            Map.entry("PROCESSING->CANCELLED", "0"), Map.entry("FAILED->CANCELLED", "0"),
            Map.entry("DEAD->PENDING", "=0"), Map.entry("CANCELLED->PENDING", "=0"),
            Map.entry("WAITING->PENDING", "0"), Map.entry("WAITING->CANCELLED", "0"));
    private static final String LEASE_EXPIRED = "processing lease expired";

    /** {@code marker}: the payload's {@code once}, which a submission without idempotency key carries. */
    private record Row(UUID id, String status, String key, Instant runAt, String marker) {
    }

    /** One entry of a task's history ({@code task_events}); {@code from} null for its creation. */
    record Event(String from, String to, int attempt, String worker, String error, Instant at) {
    }

    private final ReplicaCluster cluster;

    InvariantChecker(ReplicaCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * How much is not finished: the tasks not finished, those submitted (missing ones count) and any other in the
     * table, and the ends whose follow-ups are not done (a callback task not made yet leaves no unfinished task).
     */
    long unfinished(Submissions submissions) throws SQLException {
        Map<UUID, Row> rows = rows();
        long unfinished = rows.values().stream().filter(row -> !TERMINAL.contains(row.status())).count();
        try (Connection db = cluster.database()) {
            unfinished += FollowUpChecker.followUpsLeft(db);
        }
        return unfinished + submissions.accepted().keySet().stream().filter(id -> !rows.containsKey(id)).count();
    }

    Summary check(long seed, Duration run, List<InjectedFault> faults, Submissions submissions,
            CallbackReceiver callbacks, Duration drain) throws SQLException {
        Map<UUID, Row> rows = rows();
        Map<UUID, List<Event>> history = history();
        Map<UUID, Submissions.Accepted> accepted = submissions.accepted();
        Set<String> refusedKeys = submissions.refusedKeys();
        Set<String> refusedMaybeMade = submissions.refusedMaybeMade();

        long finished = 0;
        Map<String, Long> endStates = new TreeMap<>();
        List<String> lostExamples = new ArrayList<>();
        long lost = 0;
        for (UUID id : accepted.keySet()) {
            Row row = rows.get(id);
            if (row != null && TERMINAL.contains(row.status())) {
                finished++;
                endStates.merge(row.status(), 1L, Long::sum);
            } else {
                lost++;
                if (lostExamples.size() < 5) {
                    lostExamples.add(id + (row == null ? " missing" : " " + row.status()));
                }
            }
        }
        long scheduleTasks = 0;
        long unfinishedOthers = 0;
        long storedAfterMaybe = 0;
        long storedAfterNothingChanged = 0;
        long storedUnanswered = 0;
        Set<String> unansweredKeyless = submissions.unansweredKeyless();
        Map<String, Long> byMarker = new HashMap<>();
        for (Row row : rows.values()) {
            if (row.marker() != null) {
                byMarker.merge(row.marker(), 1L, Long::sum);
            }
            if (accepted.containsKey(row.id())) {
                continue;
            }
            // A keyless submission is known by its payload's marker, any other by its idempotency key.
            String refusal = row.marker() != null ? row.marker() : row.key();
            if (refusal != null && refusedKeys.contains(refusal)) {
                if (refusedMaybeMade.contains(refusal)) {
                    storedAfterMaybe++;
                } else {
                    storedAfterNothingChanged++;
                }
            }
            if (row.marker() != null && unansweredKeyless.contains(row.marker())) {
                storedUnanswered++;
            }
            if (row.key() != null && row.key().startsWith("schedule:")) {
                scheduleTasks++;
            }
            if (!TERMINAL.contains(row.status())) {
                unfinishedOthers++;
            }
        }

        long illegal = 0;
        List<String> illegalExamples = new ArrayList<>();
        long superseded = 0;
        long rerunsAfterLapse = 0;
        long rerunsAfterCancel = 0;
        Duration maxWait = Duration.ZERO;
        List<Long> waits = new ArrayList<>();
        String maxWaitTask = "none";
        for (Map.Entry<UUID, List<Event>> task : history.entrySet()) {
            UUID id = task.getKey();
            Row row = rows.get(id);
            String previous = null;
            int attempt = 0;
            String claim = null;
            String lastEnd = "";
            // Since when the task has been due and not started: from its creation (or its runAt), again from a
            // manual retry; a task cancelled before it started waits for nothing.
            Instant dueSince = null;
            for (Event event : task.getValue()) {
                Optional<String> problem = problem(previous, attempt, event);
                if (problem.isPresent()) {
                    illegal++;
                    if (illegalExamples.size() < 5) {
                        illegalExamples.add(id + ": " + problem.get());
                    }
                }
                if (event.from() == null) {
                    // a dependent or a then task falls due when it is released
                    dueSince = "WAITING".equals(event.to()) ? null : due(event.at(), accepted.get(id), row);
                } else if ("PENDING".equals(event.to()) && ("=0".equals(EDGES.get(event.from() + "->PENDING"))
                        || "WAITING".equals(event.from()))) {
                    dueSince = event.at();
                } else if ("CANCELLED".equals(event.to())) {
                    dueSince = null;
                }
                if ("PROCESSING".equals(event.to())) {
                    if (dueSince != null) {
                        Duration wait = Duration.between(dueSince, event.at());
                        waits.add(wait.toMillis());
                        if (wait.compareTo(maxWait) > 0) {
                            maxWait = wait;
                            maxWaitTask = id.toString();
                        }
                        dueSince = null;
                    }
                    if (lastEnd.equals("lapse")) {
                        rerunsAfterLapse++;
                    } else if (lastEnd.equals("cancel")) {
                        rerunsAfterCancel++;
                    }
                    claim = event.worker();
                    lastEnd = "";
                } else if ("PROCESSING".equals(event.from())) {
                    if (!"CANCELLED".equals(event.to()) && (claim == null || !claim.equals(event.worker()))) {
                        superseded++;
                    }
                    lastEnd = "CANCELLED".equals(event.to()) ? "cancel"
                            : event.error() != null && event.error().startsWith(LEASE_EXPIRED) ? "lapse" : "";
                    claim = null;
                }
                previous = event.to();
                attempt = event.attempt();
            }
            if (row != null && previous != null && !previous.equals(row.status())) {
                illegal++;
                if (illegalExamples.size() < 5) {
                    illegalExamples.add(id + ": history ends " + previous + ", the row is " + row.status());
                }
            }
        }
        for (UUID id : rows.keySet()) {
            if (!history.containsKey(id)) {
                illegal++;
                if (illegalExamples.size() < 5) {
                    illegalExamples.add(id + ": no history");
                }
            }
        }

        long duplicated = byMarker.values().stream().mapToLong(count -> count - 1).sum();
        long[] dispatch = dispatchLog();
        FollowUpCounts followUps = new FollowUpChecker(cluster, history).check(submissions, callbacks);
        return new Summary(seed, run, faults, accepted.size(), submissions.refusedByStatus(),
                submissions.unansweredSeen(), submissions.unansweredKeyless().size(), storedUnanswered, duplicated,
                storedAfterMaybe, storedAfterNothingChanged, scheduleTasks, finished, endStates, lost, lostExamples,
                unfinishedOthers, submissions.cancelled(), submissions.retried(), dispatch[0], dispatch[1], dispatch[2],
                illegal, illegalExamples, superseded, rerunsAfterLapse, rerunsAfterCancel, percentile(waits, 0.99), maxWait,
                maxWaitTask, drain, followUps);
    }

    /** When a task created at {@code created} fell due: then, or at the runAt its client or schedule gave. */
    private static Instant due(Instant created, Submissions.Accepted given, Row row) {
        if (given != null) {
            return given.runAt().filter(created::isBefore).orElse(created);
        }
        // a schedule's occurrence, made up to a second late or (misfire aside) never early
        return row != null && row.runAt().isAfter(created) ? row.runAt() : created;
    }

    /** What is wrong with {@code event} following a task's {@code previous} status at {@code attempt}, if anything. */
    private static Optional<String> problem(String previous, int attempt, Event event) {
        if (event.from() == null) {
            // created PENDING, or WAITING for its dependencies or its batch
            return previous == null && ("PENDING".equals(event.to()) || "WAITING".equals(event.to()))
                    && event.attempt() == 0 ? Optional.empty()
                    : Optional.of("created as " + event.to() + " after " + previous);
        }
        if (!event.from().equals(previous)) {
            return Optional.of("event " + event.from() + "->" + event.to() + " follows " + previous);
        }
        String edge = event.from() + "->" + event.to();
        String rule = EDGES.get(edge);
        if (rule == null) {
            return Optional.of("no edge " + edge);
        }
        boolean attemptOk = switch (rule) {
            case "+1" -> event.attempt() == attempt + 1;
            case "-1" -> event.attempt() == attempt - 1;
            case "=0" -> event.attempt() == 0;
            default -> event.attempt() == attempt;
        };
        return attemptOk ? Optional.empty()
                : Optional.of(edge + " took the attempt from " + attempt + " to " + event.attempt());
    }

    private static Duration percentile(List<Long> millis, double fraction) {
        if (millis.isEmpty()) {
            return Duration.ZERO;
        }
        List<Long> sorted = millis.stream().sorted().toList();
        return Duration.ofMillis(sorted.get((int) Math.min(sorted.size() - 1, Math.floor(fraction * sorted.size()))));
    }

    private Map<UUID, Row> rows() throws SQLException {
        Map<UUID, Row> rows = new HashMap<>();
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(
                "select id, status, idempotency_key, run_at, payload->>'once' from tasks"); ResultSet row = query.executeQuery()) {
            while (row.next()) {
                UUID id = row.getObject(1, UUID.class);
                rows.put(id, new Row(id, row.getString(2), row.getString(3), row.getTimestamp(4).toInstant(),
                        row.getString(5)));
            }
        }
        return rows;
    }

    private Map<UUID, List<Event>> history() throws SQLException {
        Map<UUID, List<Event>> history = new HashMap<>();
        try (Connection db = cluster.database()) {
            db.setAutoCommit(false); // a cursor, not the whole result in memory at once
            try (PreparedStatement query = db.prepareStatement("select task_id, from_status, to_status, attempt, "
                    + "worker, error, at from task_events order by task_id, id")) {
                query.setFetchSize(10_000);
                try (ResultSet row = query.executeQuery()) {
                    while (row.next()) {
                        history.computeIfAbsent(row.getObject(1, UUID.class), id -> new ArrayList<>())
                                .add(new Event(row.getString(2), row.getString(3), row.getInt(4), row.getString(5),
                                        row.getString(6), row.getTimestamp(7).toInstant()));
                    }
                }
            }
            db.commit();
        }
        return history;
    }

    /**
     * {@code dispatch_log} in commit order (its rows are written after the fence check, which locks the fence
     * row, so their ids follow the commits): consecutive batches with one token are one run; a batch whose
     * token is below the run before it, that belongs to a run already ended, or that repeats the run's token
     * under another holder, is a stale-token write.
     *
     * @return batches, runs, stale-token writes
     */
    private long[] dispatchLog() throws SQLException {
        long batches = 0;
        long runs = 0;
        long stale = 0;
        long runToken = 0;
        String runHolder = "";
        Set<Long> ended = new HashSet<>();
        try (Connection db = cluster.database();
                PreparedStatement log = db.prepareStatement("select token, holder from dispatch_log order by id");
                ResultSet batch = log.executeQuery()) {
            while (batch.next()) {
                batches++;
                long token = batch.getLong(1);
                String holder = batch.getString(2);
                if (token == runToken) {
                    if (!holder.equals(runHolder)) {
                        stale++; // the same number from another holder: Redis handed it out twice
                    }
                    continue;
                }
                if (token < runToken || ended.contains(token)) {
                    stale++;
                    continue;
                }
                ended.add(runToken);
                runToken = token;
                runHolder = holder;
                runs++;
            }
        }
        return new long[] {batches, runs, stale};
    }
}

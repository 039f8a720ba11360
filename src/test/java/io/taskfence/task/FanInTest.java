package io.taskfence.task;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.Executable;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.config.HttpClientConfig;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.jobs.FairDispatchTest;

/**
 * A fan-in (DESIGN.md, "Dependencies", "Follow-ups"): key A makes many tasks wait for one task X of its own
 * (200,000 when X is cancelled, {@code fanin.dependents}; 20,000 when it succeeds and each dependent runs,
 * {@code fanin.succeeding}); X is then cancelled while PENDING, or succeeds as it falls due at its {@code runAt}.
 * Meanwhile key B submits a task every 100 ms, and B's tasks must start within 2 s of their submission (the
 * product's promise), none losing its lease or running twice, while every dependent of X ends (CANCELLED, or run to
 * SUCCEEDED) within the bound each scenario states. Only those bounds are asserted; the figures are printed, one
 * "FanIn" line a scenario.
 */
@QuarkusTest
@TestServers
// The running profile (worker leases of 3 s: a heartbeat held up a few seconds shows) with a short stream, so that
// B's tasks queue behind 100 of A's, not 1,000 (which a busy machine takes over 2 s to drain whatever the fan-in does).
@TestProfile(FairDispatchTest.ShortQueue.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FanInTest {

    /** The cancel's fan-in: the 200,000 (its cascade is what stalled dispatch). */
    private static final int CANCELLED = Integer.getInteger("fanin.dependents", 200_000);
    /**
     * The success's fan-in, each dependent run: 20,000 by default, so that CI's run stays short (their run takes
     * minutes at 200,000 on two cores); {@code -Dfanin.succeeding=200000} for the size.
     */
    private static final int SUCCEEDING = Integer.getInteger("fanin.succeeding", 20_000);
    private static final int PER_REQUEST = 1_000;
    /** From the cancel, or from X's runAt, the most the dependents may take to end: cancelled at once, or each run. */
    private static final Duration ALL_CANCELLED_WITHIN = Duration.ofSeconds(120);
    private static final Duration ALL_SUCCEEDED_WITHIN = Duration.ofMinutes(10);
    private static final double START_WITHIN_SECONDS = 2.0;
    /** B's long-ish tasks (every 20th): longer than the worker lease (3 s), so they live on heartbeats. */
    private static final int SLEEP_MS = 4_000;
    private static final String A = ApiKeysForTests.SUBMIT_KEY_NAME;

    @Inject
    TaskTransitions transitions;
    @Inject
    DataSource db;

    /**
     * Each scenario leaves hundreds of thousands of rows in the schema this class shares with others of its profile:
     * emptied at once (truncate, not delete: no dead rows for autovacuum to work through while later classes run).
     */
    @AfterEach
    void emptyTheTables() {
        Sql.run(db, "truncate tasks, task_event_log, tasks_due, tasks_in_flight, tasks_off_path, tasks_waiting, "
                + "task_dependencies, task_follow_ups, dispatch_log");
    }

    @Test
    @Order(1)
    void cancellingTheTaskManyWaitForHoldsNoOtherKeysTaskBack() throws Exception {
        // X is due in an hour: however long storing its 200,000 dependents takes on a busy machine, the cancel finds
        // it PENDING (its history below shows it), and the scenario's moments are the test's, not the clock's.
        UUID x = taskWithDependents(CANCELLED, Instant.now().plus(1, ChronoUnit.HOURS));
        try (KeyB b = new KeyB()) {
            Thread.sleep(3_000); // B's trickle under way before the cancel
            Instant runAt = Instant.now(); // the moment B's starts are reported from
            long sent = System.nanoTime();
            given().config(RestAssured.config().httpClient(HttpClientConfig.httpClientConfig().setParam(
                    "http.socket.timeout", (int) ALL_CANCELLED_WITHIN.toMillis()))) // not the tests' 30 s
                    .auth().oauth2(ApiKeysForTests.SUBMIT_KEY).post("/api/v1/tasks/" + x + "/cancel").then().statusCode(200);
            long cancelMs = elapsedMs(sent);
            awaitDependentsEnded(x, CANCELLED, ALL_CANCELLED_WITHIN.minusMillis(elapsedMs(sent)), Duration.ofMillis(500));
            long allEndedMs = elapsedMs(sent);
            List<UUID> ids = b.stopAfter(Math.max(3_000, 12_000 - allEndedMs));

            Starts starts = starts(ids, runAt);
            System.out.printf("FanIn cancel: %d dependents; the cancel answered in %d ms; all ended %d ms after it was "
                    + "sent; B's %d tasks started at most %.3f s, p50 %.3f s after their submission; %s%n", CANCELLED,
                    cancelMs, allEndedMs, starts.delays().size(), starts.max(), starts.p50(), reruns(x));
            assertRanOnceAndPromptly(x, ids, starts,
                    () -> assertEquals(List.of("null>PENDING", "PENDING>CANCELLED"), history(x), "X cancelled while PENDING"),
                    () -> assertEquals(CANCELLED, dependents(x, "'CANCELLED'"), "every dependent CANCELLED within "
                            + ALL_CANCELLED_WITHIN + " of the cancel"));
        }
    }

    @Test
    @Order(2) // its 200,000 tasks run for minutes: after the cancel, which then has the replica to itself
    void theTaskManyWaitForSucceedingHoldsNoOtherKeysTaskBack() throws Exception {
        // Due in an hour while its dependents are stored, however long that takes on a busy machine; then due 4 s
        // after by PostgreSQL's clock (the PENDING task's due row follows its runAt).
        UUID x = taskWithDependents(SUCCEEDING, Instant.now().plus(1, ChronoUnit.HOURS));
        Sql.run(db, "update tasks set run_at = now() + interval '4 seconds' where id = ?", x);
        Instant runAt = runAt(x);
        sleepUntil(runAt.minusSeconds(3));
        try (KeyB b = new KeyB()) {
            awaitDependentsEnded(x, SUCCEEDING, Duration.between(Instant.now(), runAt).plus(ALL_SUCCEEDED_WITHIN), Duration.ofSeconds(1));
            List<UUID> ids = b.stopAfter(3_000);

            String xEnded = "(select updated_at from tasks where id = '" + x + "')";
            String ofDependents = " from tasks t join task_dependencies d on d.task_id = t.id where d.depends_on = ?";
            double ranMs = seconds("select extract(epoch from started_at - run_at) from tasks where id = ?", x) * 1000;
            double firstStartMs = seconds("select extract(epoch from min(t.started_at) - " + xEnded + ")" + ofDependents,
                    x) * 1000;
            double allEndedS = seconds("select extract(epoch from max(t.updated_at) - " + xEnded + ")" + ofDependents, x);
            Starts starts = starts(ids, runAt);
            System.out.printf("FanIn succeed: %d dependents, %d SUCCEEDED; X (%s) started %.0f ms after its runAt; the first dependent "
                    + "started %.0f ms after X's end (its transaction's now()); all ended %.1f s after it; B's %d tasks "
                    + "started at most %.3f s, p50 %.3f s after their submission; %s%n", SUCCEEDING,
                    dependents(x, "'SUCCEEDED'"), status(x), ranMs,
                    firstStartMs, allEndedS, starts.delays().size(), starts.max(), starts.p50(), reruns(x));
            assertRanOnceAndPromptly(x, ids, starts,
                    () -> assertEquals(SUCCEEDING, dependents(x, "'SUCCEEDED'"), "every dependent SUCCEEDED within "
                            + ALL_SUCCEEDED_WITHIN + " of X's runAt"),
                    () -> assertEquals(0, Sql.count(db, "select count(*)" + ofDependents
                            + " and (t.attempt > 1 or t.enqueues > 1)", x), "no dependent ran twice"));
        }
    }

    // ---- plumbing

    /**
     * X, of key A, due once its dependents are all stored (submitted 1,000 a transaction, as a batch request
     * stores them), and those dependents, WAITING for it.
     */
    private UUID taskWithDependents(int count, Instant due) {
        Instant runAt = due.truncatedTo(ChronoUnit.MILLIS);
        UUID x = transitions.submit(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 0, runAt, null, null)
                .ownedBy(A)).task().id();
        long started = System.nanoTime();
        NewTask dependent = new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 0, null, null, null).ownedBy(A)
                .waitingFor(new NewTask.Dependencies(List.of(x), List.of(), false));
        for (int stored = 0; stored < count; stored += PER_REQUEST) {
            int n = Math.min(PER_REQUEST, count - stored);
            assertTrue(transitions.submitAll(Collections.nCopies(n, dependent)).stream()
                    .allMatch(outcome -> outcome instanceof Submission made && made.task().status() == TaskStatus.WAITING),
                    "every dependent stored WAITING");
        }
        System.out.printf("FanIn: %d dependents stored in %d ms%n", count, elapsedMs(started));
        assertTrue(Instant.now().isBefore(runAt.minusSeconds(5)),
                "storing the dependents took until 5 s before X's runAt " + runAt + ": the scenario would start late");
        return x;
    }

    /**
     * B's tasks started within 2 s of their submission, each on its first attempt and once (one start, one SUCCEEDED),
     * no attempt of any task of the scenario (X's and those created after it) lapsed, failed or ran twice, and the scenario's own checks: all reported
     * together, so that one failing hides none of the others.
     */
    private void assertRanOnceAndPromptly(UUID x, List<UUID> b, Starts starts, Executable... scenario) {
        Object ids = b.toArray(UUID[]::new);
        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertEquals(b.size(), starts.delays().size(), "a start per task of B's"));
        checks.add(() -> assertTrue(starts.max() <= START_WITHIN_SECONDS, "B's tasks started within "
                + START_WITHIN_SECONDS + " s of their submission; the late ones, as submitted at (s from the cancel or "
                + "X's runAt): "
                + "seconds to start: " + starts.late()));
        checks.addAll(List.of(scenario));
        checks.add(() -> assertEquals(0, Sql.count(db, "select count(*) from tasks where id = any(?) and attempt <> 1",
                ids), "B's tasks ran on their first attempt"));
        checks.add(() -> assertEquals(b.size(), Sql.count(db, "select count(*) from task_events where task_id = any(?) "
                + "and to_status = 'SUCCEEDED'", ids), "each of B's tasks SUCCEEDED once"));
        checks.add(() -> assertEquals(0, Sql.count(db, "select count(*) from task_event_log e join tasks t on t.id = e.task_id "
                + "where e.from_status = 'PROCESSING' and " + since(x)), "no attempt ended but by its success (a lapsed lease)"));
        checks.add(() -> assertEquals(0, Sql.count(db, "select count(*) from tasks t where (t.attempt > 1 or t.enqueues > 1) "
                + "and " + since(x)), "no task was dispatched or run twice"));
        assertAll(checks);
    }

    /** Key B's steady trickle through the API, as a client's: a task every 100 ms, every 20th a sleep of 4 s. */
    private final class KeyB implements AutoCloseable {

        private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
        private final List<UUID> ids = new CopyOnWriteArrayList<>();
        private final List<Throwable> refused = new CopyOnWriteArrayList<>();

        KeyB() {
            clock.scheduleAtFixedRate(() -> {
                String task = ids.size() % 20 == 0 ? "{\"type\":\"sleep\",\"payload\":{\"ms\":" + SLEEP_MS + "}}"
                        : "{\"type\":\"noop\",\"payload\":{}}";
                try {
                    ids.add(UUID.fromString(given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY)
                            .contentType("application/json").body(task).post("/api/v1/tasks").then().statusCode(201)
                            .extract().path("id")));
                } catch (Throwable e) { // an exception would end the schedule without a word
                    refused.add(e);
                }
            }, 0, 100, TimeUnit.MILLISECONDS);
        }

        /** Stops submitting after {@code ms}, then waits for the tasks submitted to end. */
        List<UUID> stopAfter(long ms) throws InterruptedException {
            Thread.sleep(ms);
            clock.shutdown();
            assertTrue(clock.awaitTermination(30, TimeUnit.SECONDS), "B's last submission returned");
            assertEquals(List.of(), refused, "B's submissions were taken");
            Object all = ids.toArray(UUID[]::new);
            await("B's tasks ended").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> Sql.count(db, "select count(*) from tasks where id = any(?) and status in (" + ENDED
                            + ")", all) == ids.size());
            return List.copyOf(ids);
        }

        @Override
        public void close() {
            clock.shutdownNow();
        }
    }

    /** Seconds from submission to start of each of B's tasks, in submission order, and when each was submitted. */
    private record Starts(List<Double> submittedAt, List<Double> delays) {

        double max() {
            return delays.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        }

        double p50() {
            List<Double> sorted = delays.stream().sorted().toList();
            return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
        }

        /** "submitted at (s from the cancel, or from X's runAt): seconds to start" for those over the bound. */
        List<String> late() {
            List<String> late = new ArrayList<>();
            for (int i = 0; i < delays.size(); i++) {
                if (delays.get(i) > START_WITHIN_SECONDS) {
                    late.add(String.format("%+.1f: %.3f", submittedAt.get(i), delays.get(i)));
                }
            }
            return late;
        }
    }

    private Starts starts(List<UUID> tasks, Instant runAt) {
        List<Double> submittedAt = new ArrayList<>();
        List<Double> delays = new ArrayList<>();
        Sql.rows(db, "select extract(epoch from t.created_at - '" + runAt + "'::timestamptz), extract(epoch from "
                + "(select min(e.at) from task_events e where e.task_id = t.id and e.to_status = 'PROCESSING') - t.created_at) "
                + "from tasks t where t.id = any('{" + tasks.stream().map(UUID::toString).reduce((a, b) -> a + "," + b).orElse("")
                + "}'::uuid[]) order by t.created_at", row -> {
                    if (row.getObject(2) != null) {
                        submittedAt.add(row.getDouble(1));
                        delays.add(row.getDouble(2));
                    }
                });
        return new Starts(submittedAt, delays);
    }

    private static final String ENDED = "'SUCCEEDED', 'DEAD', 'CANCELLED'";

    /** Waits at most {@code bound} for X's dependents to end; those that have not are reported with the figures. */
    private void awaitDependentsEnded(UUID x, int count, Duration bound, Duration poll) {
        try {
            await("every dependent ended").atMost(bound).pollInterval(poll).until(() -> dependents(x, ENDED) == count);
        } catch (ConditionTimeoutException e) {
            System.out.printf("FanIn: %d of %d dependents ended within %s%n", dependents(x, ENDED), count, bound);
        }
    }

    /** How many of X's dependents are in one of {@code statuses} (SQL literals). */
    private long dependents(UUID x, String statuses) {
        return Sql.count(db, "select count(*) from task_dependencies d join tasks t on t.id = d.task_id "
                + "where d.depends_on = ? and t.status in (" + statuses + ")", x);
    }

    private Instant runAt(UUID x) {
        return Instant.parse(Sql.value(db, "select to_char(run_at at time zone 'UTC', "
                + "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') from tasks where id = ?", x));
    }

    private TaskStatus status(UUID id) {
        return TaskStatus.valueOf(Sql.value(db, "select status from tasks where id = ?", id));
    }

    /** A number of seconds the query answers; NaN for null. */
    private double seconds(String sql, Object... parameters) {
        String value = Sql.value(db, sql, parameters);
        return value == null ? Double.NaN : Double.parseDouble(value);
    }

    /** The scenario's tasks: X and those created after it (its dependents, B's). */
    private static String since(UUID x) {
        return "t.created_at >= (select created_at from tasks where id = '" + x + "')";
    }

    /** The scenario's attempts that ended but by their success (a lapsed lease, a failure), and its tasks run twice. */
    private String reruns(UUID x) {
        return Sql.count(db, "select count(*) from task_event_log e join tasks t on t.id = e.task_id where "
                + "e.from_status = 'PROCESSING' and " + since(x)) + " attempts ended but by success, "
                + Sql.count(db, "select count(*) from tasks t where t.attempt > 1 and " + since(x)) + " tasks ran twice";
    }

    /** The task's transitions, oldest first, as {@code from>to}. */
    private List<String> history(UUID id) {
        List<String> moves = new ArrayList<>();
        Sql.rows(db, "select from_status, to_status from task_events where task_id = '" + id + "' order by id",
                row -> moves.add(row.getString(1) + ">" + row.getString(2)));
        return moves;
    }

    private static void sleepUntil(Instant moment) throws InterruptedException {
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), moment).toMillis()));
    }

    private static long elapsedMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}

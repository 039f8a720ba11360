package io.taskfence.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.PostgresThroughForwarder;
import io.taskfence.testing.TcpForwarder;
import io.taskfence.testing.TestServers;

/**
 * A worker whose heartbeats PostgreSQL stops answering (the path to it stalls: statements hang, they do not
 * fail) gives its attempt up when the lease runs out by its own clock: the handler is interrupted, or a claim
 * waiting for a worker never starts, before PostgreSQL sees the lease end and recovery may hand the task on.
 * So the run recovery starts once PostgreSQL is back never overlaps the first. The test reaches PostgreSQL
 * directly, around the stalled path, to read the lease as recovery would.
 */
@QuarkusTest
@TestServers
@WithTestResource(value = PostgresThroughForwarder.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
@TestProfile(LeaseRunsOutHereTest.OneWorkerOneAhead.class)
class LeaseRunsOutHereTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration HEARTBEAT_PERIOD = LEASE.dividedBy(3);
    /** Timer and scheduling slack on a busy machine, for the bound that does not depend on the margin. */
    private static final Duration SLACK = Duration.ofMillis(250);

    public static final class OneWorkerOneAhead implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
            settings.put("taskfence.worker.lease", LEASE.toMillis() + "ms");
            settings.put("taskfence.worker.concurrency", "1");
            settings.put("taskfence.worker.claim-ahead", "1");
            settings.put(GuardedRunHandler.ENABLED, "true");
            return settings;
        }
    }

    /** The service's path to PostgreSQL; set by {@link PostgresThroughForwarder}. */
    TcpForwarder postgres;
    @Inject
    TaskTransitions transitions;
    @Inject
    GuardedRunHandler handler;
    @Inject
    MeterRegistry metrics;
    @ConfigProperty(name = "quarkus.flyway.schemas")
    String schema;

    @Test
    void aHandlerWhoseHeartbeatsHangIsInterruptedWhenItsLeaseEndsHereAndItsRerunComesAfter() throws Exception {
        double lapsedBefore = lapsed("running");
        UUID id = submit(JsonNodeFactory.instance.objectNode().put("blockFirst", true));
        assertTrue(handler.awaitStart(id, 1, Duration.ofSeconds(20)), "the first attempt never started");

        Instant stalledAt = Instant.now();
        postgres.stall();
        GuardedRunHandler.Run first;
        try {
            assertTrue(handler.awaitInterrupt(id, 1, LEASE.multipliedBy(2)),
                    "the handler ran on for two leases after PostgreSQL stopped answering its heartbeats");
            first = awaitRuns(id, 1).getFirst();
            Instant leaseEndInPostgres = leaseUntil(id);

            assertTrue(first.ended().isBefore(leaseEndInPostgres), "the first run ended at " + first.ended()
                    + ", after its lease ended in PostgreSQL at " + leaseEndInPostgres + ": recovery could hand it on");
            // The last heartbeat PostgreSQL confirmed was sent at most a period (and its round trip) before the stall.
            Instant earliestEndHere = stalledAt.plus(LEASE.minus(LeaseDeadline.margin(LEASE)).minus(HEARTBEAT_PERIOD));
            assertFalse(first.ended().isBefore(earliestEndHere.minus(SLACK)), "the first run was stopped at "
                    + first.ended() + ", before its lease could have ended here (" + earliestEndHere + ")");
            awaitInPostgres("the lease to end in PostgreSQL", "select lease_until < now() from tasks where id = ?", id);
        } finally {
            postgres.resume();
        }

        awaitInPostgres("the rerun to succeed", "select status = 'SUCCEEDED' from tasks where id = ?", id);
        List<GuardedRunHandler.Run> runs = handler.runsOf(id);
        assertEquals(2, runs.size(), "runs: " + runs);
        assertTrue(first.interrupted(), "runs: " + runs);
        assertEquals(2, runs.get(1).attempt(), "runs: " + runs);
        assertFalse(runs.get(0).overlaps(runs.get(1)), "the two runs overlapped: " + runs);
        assertTrue(lastError(id).startsWith("processing lease expired"),
                "the first attempt wrote its own outcome after giving up: " + lastError(id));
        assertEquals(lapsedBefore + 1, lapsed("running"), "lapsed leases of running handlers");
    }

    @Test
    void aClaimWaitingForAWorkerWhoseLeaseEndedHereNeverStarts() throws Exception {
        double lapsedBefore = lapsed("waiting");
        UUID running = submit(JsonNodeFactory.instance.objectNode().put("blockFirst", true).put("stubborn", true));
        assertTrue(handler.awaitStart(running, 1, Duration.ofSeconds(20)), "the first task never started");
        UUID waiting = submit(JsonNodeFactory.instance.objectNode());
        // With the one worker busy, PROCESSING means claimed ahead, waiting for it.
        awaitInPostgres("the second task to be claimed ahead", "select status = 'PROCESSING' from tasks where id = ?",
                waiting);

        postgres.stall();
        try {
            assertTrue(handler.awaitInterrupt(running, 1, LEASE.multipliedBy(2)),
                    "the running handler was not interrupted within two leases of PostgreSQL going silent");
            // Over in PostgreSQL, so over here too: the worker may free up from now on.
            awaitInPostgres("the waiting claim's lease to end in PostgreSQL",
                    "select lease_until < now() from tasks where id = ?", waiting);
            handler.releaseStubborn();
            awaitRuns(running, 1);
        } finally {
            postgres.resume();
        }

        awaitInPostgres("both tasks to succeed", "select count(*) = 2 from tasks where id in (?, ?) "
                + "and status = 'SUCCEEDED'", running, waiting);
        List<GuardedRunHandler.Run> runs = handler.runsOf(waiting);
        assertEquals(1, runs.size(), "runs of the claim that waited: " + runs);
        assertEquals(2, runs.getFirst().attempt(), "the claim whose lease ended while it waited ran: " + runs);
        List<GuardedRunHandler.Run> runsOfRunning = handler.runsOf(running);
        assertEquals(2, runsOfRunning.size(), "runs: " + runsOfRunning);
        assertFalse(runsOfRunning.get(0).overlaps(runsOfRunning.get(1)), "the two runs overlapped: " + runsOfRunning);
        assertEquals(lapsedBefore + 1, lapsed("waiting"), "lapsed leases of claims waiting for a worker");
    }

    private UUID submit(ObjectNode payload) {
        return transitions.submit(new NewTask("guarded-run", payload, 5, 0, null, null, null)).task().id();
    }

    private List<GuardedRunHandler.Run> awaitRuns(UUID id, int count) {
        await("runs of " + id).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> handler.runsOf(id).size() >= count);
        return handler.runsOf(id);
    }

    private double lapsed(String stage) {
        Counter counter = metrics.find("taskfence.task.lease.lapsed").tags("type", "guarded-run", "stage", stage)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private void awaitInPostgres(String what, String query, Object... parameters) {
        await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> queryDirectly(query, parameters, row -> row.getBoolean(1)));
    }

    private Instant leaseUntil(UUID id) throws SQLException {
        return queryDirectly("select lease_until from tasks where id = ?", new Object[] {id},
                row -> row.getTimestamp(1).toInstant());
    }

    private String lastError(UUID id) throws SQLException {
        return queryDirectly("select coalesce(last_error, '') from tasks where id = ?", new Object[] {id},
                row -> row.getString(1));
    }

    @FunctionalInterface
    private interface Column<T> {
        T read(ResultSet row) throws SQLException;
    }

    /** One value of a one-row query, from PostgreSQL itself rather than through the service's stalled path. */
    private <T> T queryDirectly(String query, Object[] parameters, Column<T> column) throws SQLException {
        try (Connection connection = DriverManager.getConnection(PostgresSchema.DATABASE_URL + "?currentSchema="
                + schema, PostgresSchema.USER, ""); PreparedStatement statement = connection.prepareStatement(query)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException("no row: " + query);
                }
                return column.read(row);
            }
        }
    }
}

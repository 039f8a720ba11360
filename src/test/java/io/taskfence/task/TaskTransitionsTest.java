package io.taskfence.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/** Each transition of DESIGN.md, "Task lifecycle" against the real PostgreSQL: when it wins, and when it loses. */
@QuarkusTest
@TestServers
class TaskTransitionsTest {

    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(10);

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;
    @Inject
    DataSource db;

    /**
     * A heartbeat's bound on PostgreSQL's answer is its statement's alone: every connection the pool hands out after
     * it has no network time-out, so a later borrower's long statement is not cut (before, a dispatch or a success
     * batch that waited longer than half a heartbeat period on the same connection failed with "Read timed out").
     */
    @Test
    void aHeartbeatsAnswerBoundDoesNotStayOnThePooledConnection() throws Exception {
        Claim claim = fixtures.claimed();
        // A bound a busy machine's PostgreSQL meets (its commit waits for the disk); the statement below outlasts it.
        assertTrue(transitions.heartbeat(claim, Duration.ofMinutes(1), Duration.ofSeconds(1)));
        List<Connection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) { // the whole pool (quarkus.datasource.jdbc.max-size), the heartbeat's among them
                borrowed.add(db.getConnection());
            }
            for (Connection connection : borrowed) {
                assertEquals(0, connection.getNetworkTimeout());
            }
            try (Statement slow = borrowed.getFirst().createStatement()) {
                slow.execute("select pg_sleep(1.2)");
            }
        } finally {
            for (Connection connection : borrowed) {
                connection.close();
            }
        }
    }

    @Test
    void cancelWinsFromPendingEnqueuedProcessingAndFailedOnly() {
        assertEquals(TaskStatus.CANCELLED, transitions.cancel(fixtures.pending().id()).orElseThrow().status());
        assertEquals(TaskStatus.CANCELLED, transitions.cancel(fixtures.enqueued()).orElseThrow().status());
        Claim failed = fixtures.claimed();
        transitions.fail(failed, "boom", false, BASE, CAP);
        assertEquals(TaskStatus.CANCELLED, transitions.cancel(failed.taskId()).orElseThrow().status());
        Claim running = fixtures.claimed();
        assertEquals(TaskStatus.CANCELLED, transitions.cancel(running.taskId()).orElseThrow().status());

        Claim succeeded = fixtures.claimed();
        transitions.complete(succeeded, null);
        assertTrue(transitions.cancel(succeeded.taskId()).isEmpty(), "a SUCCEEDED task was cancelled");
        Claim dead = fixtures.claimed();
        transitions.fail(dead, "boom", true, BASE, CAP);
        assertTrue(transitions.cancel(dead.taskId()).isEmpty(), "a DEAD task was cancelled");
        assertTrue(transitions.cancel(UUID.randomUUID()).isEmpty());
        assertEquals(TaskStatus.SUCCEEDED, status(succeeded.taskId()));
        assertEquals(TaskStatus.DEAD, status(dead.taskId()));
    }

    /**
     * A running task cancelled: its claim is void, so every write its worker can still attempt loses and
     * leaves the row as the cancel left it (status, times, result, error, attempt, lease).
     */
    @Test
    void aCancelledRunningTasksWorkerCanWriteNothingMore() {
        Claim claim = fixtures.claimed();
        Task cancelled = transitions.cancel(claim.taskId(), TaskScope.ALL).orElseThrow();
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertEquals(0, Sql.count(db, "select count(*) from tasks where id = ? and (worker is not null "
                + "or lease_until is not null)", claim.taskId()), "the cancel left the claim in place");
        String before = rowText(claim.taskId());

        assertFalse(transitions.heartbeat(claim, Duration.ofMinutes(1)), "a heartbeat extended a cancelled task");
        assertFalse(transitions.complete(claim, JsonNodeFactory.instance.objectNode().put("late", true)),
                "a cancelled task was completed");
        assertTrue(transitions.fail(claim, "late", false, BASE, CAP).isEmpty(), "a cancelled task was failed");
        assertTrue(transitions.fail(claim, "late", true, BASE, CAP).isEmpty(), "a cancelled task was made DEAD");
        assertTrue(transitions.later(claim, Duration.ZERO).isEmpty(), "a cancelled task was put back");

        assertEquals(before, rowText(claim.taskId()), "a write of the cancelled claim changed the row");
    }

    @Test
    void retryWinsFromDeadAndCancelledWithFreshAttempts() {
        Claim claim = fixtures.claimed(fixtures.pending(1, null));
        assertEquals(Optional.of(TaskStatus.DEAD), transitions.fail(claim, "boom", false, BASE, CAP));
        Task retried = transitions.retry(claim.taskId()).orElseThrow();
        assertEquals(TaskStatus.PENDING, retried.status());
        assertEquals(0, retried.attempt());
        assertEquals("boom", retried.lastError(), "the last error stays for the record");

        assertTrue(transitions.retry(retried.id()).isEmpty(), "a PENDING task was retried");
        UUID cancelled = transitions.cancel(fixtures.pending().id()).orElseThrow().id();
        assertEquals(TaskStatus.PENDING, transitions.retry(cancelled).orElseThrow().status());
    }

    @Test
    void enqueueMovesDueTasksByPriorityAndRefusesAStaleToken() {
        String lock = "dispatch-" + UUID.randomUUID();
        Task low = submit(-5, null);
        Task high = submit(900, null);
        Task later = submit(1000, Instant.now().plus(Duration.ofHours(1)));

        List<UUID> moved = transitions.enqueueDue(TaskFixtures.fence(lock, 7), 100_000);
        assertTrue(moved.indexOf(high.id()) < moved.indexOf(low.id()), "higher priority goes first: " + moved);
        assertFalse(moved.contains(later.id()), "a task not yet due was enqueued");
        assertEquals(TaskStatus.ENQUEUED, status(high.id()));

        Task another = submit(0, null);
        StaleFenceException refused = assertThrows(StaleFenceException.class, () -> transitions.enqueueDue(TaskFixtures.fence(lock, 6), 100));
        assertEquals(6, refused.token());
        assertEquals(TaskStatus.PENDING, status(another.id()), "a refused run moved a task");
        assertTrue(transitions.enqueueDue(TaskFixtures.fence(lock, 7), 100_000).contains(another.id()), "the same token may write again");
        Task afterLoss = submit(0, null);
        assertThrows(StaleFenceException.class,
                () -> transitions.enqueueDue(new FenceToken(lock, 7, "a new holder given token 7 again:7"), 100),
                "Redis lost its counter and gave token 7 to another holder: its writes must be refused");
        assertEquals(TaskStatus.PENDING, status(afterLoss.id()));
        assertEquals(0, transitions.enqueueDue(TaskFixtures.fence(lock, 8), 100_000).stream().filter(moved::contains).count(),
                "an ENQUEUED task was enqueued twice");
    }

    @Test
    void claimWinsOnceFromEnqueuedAndCountsTheAttempt() {
        UUID id = fixtures.enqueued();
        Claim claim = transitions.claim(id, "worker-a", Duration.ofMinutes(1)).orElseThrow();
        assertEquals(1, claim.attempt());
        assertTrue(transitions.claim(id, "worker-b", Duration.ofMinutes(1)).isEmpty(), "claimed twice");
        assertTrue(transitions.claim(fixtures.pending().id(), "worker-c", Duration.ofMinutes(1)).isEmpty(),
                "a PENDING task was claimed without being enqueued");
        assertEquals(TaskStatus.PROCESSING, status(id));
    }

    @Test
    void onlyTheCurrentClaimCanHeartbeatCompleteFailOrPostpone() {
        Claim claim = fixtures.claimed();
        Claim impostor = new Claim(claim.taskId(), claim.type(), claim.payload(), claim.attempt(), "someone-else", null, 0, null);
        Claim older = new Claim(claim.taskId(), claim.type(), claim.payload(), claim.attempt() - 1, claim.claimId(), null, 0, null);

        for (Claim stale : List.of(impostor, older)) {
            assertFalse(transitions.heartbeat(stale, Duration.ofMinutes(1)));
            assertFalse(transitions.complete(stale, null));
            assertTrue(transitions.fail(stale, "x", false, BASE, CAP).isEmpty());
            assertTrue(transitions.later(stale, Duration.ofSeconds(1)).isEmpty());
        }
        assertEquals(TaskStatus.PROCESSING, status(claim.taskId()));
        assertTrue(transitions.heartbeat(claim, Duration.ofMinutes(1)));
        assertTrue(transitions.complete(claim, JsonNodeFactory.instance.objectNode().put("ok", true)));
        Task done = queries.find(claim.taskId()).orElseThrow();
        assertEquals(TaskStatus.SUCCEEDED, done.status());
        assertTrue(done.result().get("ok").asBoolean());
        assertFalse(transitions.complete(claim, null), "completed twice");
    }

    @Test
    void aBatchClaimTakesTheEnqueuedTasksOnlyEachWithAClaimIdOfItsOwn() {
        List<UUID> enqueued = List.of(fixtures.enqueued(), fixtures.enqueued(), fixtures.enqueued());
        UUID cancelled = fixtures.enqueued();
        transitions.cancel(cancelled);
        UUID pending = fixtures.pending().id(); // last: enqueuing a fixture enqueues every due task

        List<Claim> claims = transitions.claim(List.of(enqueued.get(0), pending, enqueued.get(1), cancelled,
                enqueued.get(2), enqueued.get(0)), "worker-a", Duration.ofMinutes(1));

        assertEquals(Set.copyOf(enqueued), claims.stream().map(Claim::taskId).collect(Collectors.toSet()));
        assertEquals(3, claims.stream().map(Claim::claimId).distinct().count(), "claim ids are shared");
        claims.forEach(claim -> assertTrue(claim.claimId().startsWith("worker-a/"), claim.claimId()));
        assertEquals(TaskStatus.PENDING, status(pending));
        assertEquals(TaskStatus.CANCELLED, status(cancelled));
        assertTrue(transitions.claim(enqueued, "worker-b", Duration.ofMinutes(1)).isEmpty(), "claimed twice");
    }

    @Test
    void aBatchCompletionMovesTheCurrentClaimsOnlyAndNamesThem() {
        Claim current = fixtures.claimed();
        Claim other = fixtures.claimed();
        Claim superseded = new Claim(other.taskId(), other.type(), other.payload(), other.attempt(), "someone-else", null, 0, null);

        Set<String> written = transitions.complete(List.of(
                new Completion(current, JsonNodeFactory.instance.objectNode().put("n", 1)),
                new Completion(superseded, null)));

        assertEquals(Set.of(current.claimId()), written);
        assertEquals(1, queries.find(current.taskId()).orElseThrow().result().get("n").asInt());
        assertEquals(TaskStatus.PROCESSING, status(other.taskId()));
        assertEquals(Set.of(), transitions.complete(List.of(new Completion(current, null))), "completed twice");
    }

    @Test
    void aFailureWaitsForItsBackoffAndTheLastOneIsDead() {
        Claim first = fixtures.claimed(fixtures.pending(2, null));
        assertEquals(Optional.of(TaskStatus.FAILED), transitions.fail(first, "first error", false, BASE, CAP));
        Task failed = queries.find(first.taskId()).orElseThrow();
        assertEquals("first error", failed.lastError());
        assertTrue(failed.runAt().isAfter(failed.updatedAt().minusMillis(1)), "due again only after a backoff");
        assertTrue(failed.runAt().isBefore(failed.updatedAt().plus(BASE).plusMillis(1)), "backoff over its base");

        fixtures.age(first.taskId(), BASE); // the backoff has passed
        Claim second = fixtures.claimed(failed);
        assertEquals(2, second.attempt());
        assertEquals(Optional.of(TaskStatus.DEAD), transitions.fail(second, "second error", false, BASE, CAP));
        assertEquals("second error", queries.find(first.taskId()).orElseThrow().lastError());

        Claim permanent = fixtures.claimed();
        assertEquals(Optional.of(TaskStatus.DEAD), transitions.fail(permanent, "400 from the server", true, BASE, CAP));
    }

    @Test
    void laterReturnsTheTaskToPendingWithoutSpendingAnAttemptUntilTheDeadline() {
        Claim claim = fixtures.claimed(fixtures.pending(1, Instant.now().plus(Duration.ofMinutes(10))));
        assertEquals(Optional.of(TaskStatus.PENDING), transitions.later(claim, Duration.ofSeconds(30)));
        Task waiting = queries.find(claim.taskId()).orElseThrow();
        assertEquals(0, waiting.attempt(), "a poll is not an attempt");
        assertTrue(waiting.runAt().isAfter(waiting.updatedAt().plusSeconds(29)));

        fixtures.age(claim.taskId(), Duration.ofSeconds(30));
        Claim again = fixtures.claimed(waiting);
        assertEquals(1, again.attempt(), "its only attempt is still there");
        assertEquals(Optional.of(TaskStatus.DEAD), transitions.later(again, Duration.ofMinutes(11)),
                "a poll past the deadline ends the task");
    }

    @Test
    void staleEnqueuedTasksWhoseMessageIsGoneGoBackToPendingUnderTheFence() {
        String lock = "recovery-" + UUID.randomUUID();
        UUID stale = fixtures.enqueued();
        UUID fresh = fixtures.enqueued();
        UUID waitingInTheQueue = fixtures.enqueued();
        fixtures.age(stale, Duration.ofMinutes(2));
        fixtures.age(waitingInTheQueue, Duration.ofMinutes(2));

        assertTrue(transitions.requeueStaleEnqueued(TaskFixtures.fence(lock, 3), Duration.ofMinutes(1),
                Set.of(waitingInTheQueue)) >= 1);
        assertEquals(TaskStatus.PENDING, status(stale));
        assertEquals(TaskStatus.ENQUEUED, status(fresh));
        assertEquals(TaskStatus.ENQUEUED, status(waitingInTheQueue), "its message is still queued: it keeps its place");

        fixtures.age(fresh, Duration.ofMinutes(2));
        assertThrows(StaleFenceException.class, () -> transitions.requeueStaleEnqueued(TaskFixtures.fence(lock, 2),
                Duration.ofMinutes(1), Set.of()));
        assertEquals(TaskStatus.ENQUEUED, status(fresh), "a refused recovery changed a task");
    }

    @Test
    void processingPastItsLeaseCountsAsAFailedAttemptAndItsWorkerIsShutOut() {
        String lock = "recovery-" + UUID.randomUUID();
        Claim lapsed = fixtures.claimed(fixtures.pending(3, null));
        Claim lastChance = fixtures.claimed(fixtures.pending(1, null));
        fixtures.age(lapsed.taskId(), TaskFixtures.LEASE.plusSeconds(1));
        fixtures.age(lastChance.taskId(), TaskFixtures.LEASE.plusSeconds(1));

        assertTrue(transitions.failExpiredLeases(TaskFixtures.fence(lock, 1), BASE, CAP) >= 2);
        Task failed = queries.find(lapsed.taskId()).orElseThrow();
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("processing lease expired: its worker stopped before finishing", failed.lastError(),
                "the task's error, which its tenant reads, names no pod; the event's worker does, for operators");
        assertEquals(TaskStatus.DEAD, status(lastChance.taskId()));
        assertFalse(transitions.complete(lapsed, null), "the worker whose lease lapsed completed the task");
        assertThrows(StaleFenceException.class, () -> transitions.failExpiredLeases(TaskFixtures.fence(lock, 0), BASE, CAP));
    }

    private Task submit(int priority, Instant runAt) {
        return transitions.submit(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, priority, runAt, null,
                null)).task();
    }

    /** The whole row as text, to see that nothing in it changed. */
    private String rowText(UUID id) {
        StringBuilder text = new StringBuilder();
        Sql.rows(db, "select t::text from tasks t where id = '" + id + "'", row -> text.append(row.getString(1)));
        return text.toString();
    }

    private TaskStatus status(UUID id) {
        return queries.find(id).orElseThrow().status();
    }
}

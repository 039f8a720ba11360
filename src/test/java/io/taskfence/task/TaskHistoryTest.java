package io.taskfence.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/**
 * Task history (DESIGN.md, "Task lifecycle"): every committed status change of a task is an event, written in the
 * transition's transaction, whichever path made it (single, batched, recovery's set-based ones); a transition
 * that loses writes none, and a change that is not a status change (a heartbeat) is no event.
 */
@QuarkusTest
@TestServers
class TaskHistoryTest {

    private static final Duration BACKOFF = Duration.ofSeconds(1);

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskHistory history;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;
    @Inject
    DataSource db;

    /** An event without its time, for comparing whole histories. */
    record Step(TaskStatus from, TaskStatus to, int attempt, String worker, String error) {
        static Step of(TaskEvent event) {
            return new Step(event.from(), event.to(), event.attempt(), event.worker(), event.error());
        }
    }

    @Test
    void aTasksWholeLifeThroughFailuresRecoveryAndSuccessIsItsHistory() {
        Task task = fixtures.pending(3, null);
        UUID id = task.id();
        fixtures.enqueue(List.of(id)); // a dispatch batch
        fixtures.age(id, Duration.ofMinutes(2));
        assertTrue(transitions.requeueStaleEnqueued(TaskFixtures.fence("recovery-" + UUID.randomUUID(), 1),
                Duration.ofMinutes(1), Set.of()) >= 1, "recovery requeued nothing");
        Claim first = fixtures.claimed(queries.find(id).orElseThrow());
        assertTrue(transitions.heartbeat(first, TaskFixtures.LEASE), "a heartbeat is no transition");
        assertEquals(Optional.of(TaskStatus.FAILED), transitions.fail(first, "first error", false, BACKOFF, BACKOFF));
        fixtures.age(id, BACKOFF);
        Claim second = fixtures.claimed(queries.find(id).orElseThrow());
        fixtures.age(id, TaskFixtures.LEASE.plusSeconds(1));
        assertTrue(transitions.failExpiredLeases(TaskFixtures.fence("recovery-" + UUID.randomUUID(), 1), BACKOFF,
                BACKOFF) >= 1, "recovery failed no lease");
        fixtures.age(id, BACKOFF);
        Claim third = fixtures.claimed(queries.find(id).orElseThrow());
        assertEquals(Set.of(third.claimId()), transitions.complete(List.of(new Completion(third, null))));

        List<TaskEvent> events = history.events(id, TaskScope.ALL).orElseThrow();
        assertEquals(List.of(
                new Step(null, TaskStatus.PENDING, 0, null, null),
                new Step(TaskStatus.PENDING, TaskStatus.ENQUEUED, 0, null, null),
                new Step(TaskStatus.ENQUEUED, TaskStatus.PENDING, 0, null, null),
                new Step(TaskStatus.PENDING, TaskStatus.ENQUEUED, 0, null, null),
                new Step(TaskStatus.ENQUEUED, TaskStatus.PROCESSING, 1, first.claimId(), null),
                new Step(TaskStatus.PROCESSING, TaskStatus.FAILED, 1, first.claimId(), "first error"),
                new Step(TaskStatus.FAILED, TaskStatus.ENQUEUED, 1, null, null),
                new Step(TaskStatus.ENQUEUED, TaskStatus.PROCESSING, 2, second.claimId(), null),
                new Step(TaskStatus.PROCESSING, TaskStatus.FAILED, 2, second.claimId(),
                        "processing lease expired: its worker stopped before finishing"),
                new Step(TaskStatus.FAILED, TaskStatus.ENQUEUED, 2, null, null),
                new Step(TaskStatus.ENQUEUED, TaskStatus.PROCESSING, 3, third.claimId(), null),
                new Step(TaskStatus.PROCESSING, TaskStatus.SUCCEEDED, 3, third.claimId(), null)),
                events.stream().map(Step::of).toList());
        for (int i = 1; i < events.size(); i++) {
            assertFalse(events.get(i).at().isBefore(events.get(i - 1).at()), "event " + i + " before the one before it");
        }
        assertEquals(task.createdAt(), events.getFirst().at(), "the creation's event is at the task's creation");
    }

    @Test
    void theLastFailureOfADeadTaskAndAManualRetryAndCancelAreInIt() {
        Claim claim = fixtures.claimed(fixtures.pending(1, null));
        assertEquals(Optional.of(TaskStatus.DEAD), transitions.fail(claim, "gave up", false, BACKOFF, BACKOFF));
        transitions.retry(claim.taskId()).orElseThrow();
        transitions.cancel(claim.taskId()).orElseThrow();

        List<Step> steps = history.events(claim.taskId(), TaskScope.ALL).orElseThrow().stream().map(Step::of).toList();
        assertEquals(List.of(
                new Step(TaskStatus.PROCESSING, TaskStatus.DEAD, 1, claim.claimId(), "gave up"),
                new Step(TaskStatus.DEAD, TaskStatus.PENDING, 0, null, null),
                new Step(TaskStatus.PENDING, TaskStatus.CANCELLED, 0, null, null)), steps.subList(3, steps.size()));
    }

    @Test
    void aRunningTasksCancelNamesTheClaimItEnds() {
        Claim claim = fixtures.claimed();

        assertEquals(TaskStatus.CANCELLED, transitions.cancel(claim.taskId()).orElseThrow().status());

        List<Step> steps = history.events(claim.taskId(), TaskScope.ALL).orElseThrow().stream().map(Step::of).toList();
        assertEquals(new Step(TaskStatus.PROCESSING, TaskStatus.CANCELLED, 1, claim.claimId(), null), steps.getLast(),
                "the cancel voids the claim in the same update, and its event still says whose attempt it ended");
    }

    @Test
    void aTransitionThatLosesWritesNoEvent() {
        Claim claim = fixtures.claimed();
        UUID id = claim.taskId();
        int before = history.events(id, TaskScope.ALL).orElseThrow().size();
        Claim impostor = new Claim(id, claim.type(), claim.payload(), claim.attempt(), "someone-else", null, 0, null);

        assertTrue(transitions.retry(id).isEmpty(), "a PROCESSING task was retried");
        assertTrue(transitions.claim(id, "late", TaskFixtures.LEASE).isEmpty(), "claimed twice");
        assertFalse(transitions.complete(impostor, null));
        assertTrue(transitions.fail(impostor, "x", false, BACKOFF, BACKOFF).isEmpty());
        assertTrue(transitions.later(impostor, BACKOFF).isEmpty());
        assertTrue(transitions.heartbeat(claim, TaskFixtures.LEASE));

        assertEquals(before, history.events(id, TaskScope.ALL).orElseThrow().size(), "a lost transition left an event");
        assertEquals(before, Sql.count(db, "select count(*) from task_events where task_id = ?", id));

        assertTrue(transitions.complete(claim, null));
        assertTrue(transitions.cancel(id).isEmpty(), "a SUCCEEDED task was cancelled");
        assertEquals(before + 1, Sql.count(db, "select count(*) from task_events where task_id = ?", id),
                "only the success left an event");
    }

    @Test
    void aTransitionRolledBackLeavesNoEvent() {
        UUID id = fixtures.pending().id();
        // A transaction that moves the task and then fails: the fenced batches' shape (see TaskTransitions.fenced).
        try (var connection = db.getConnection()) {
            connection.setAutoCommit(false);
            try (var cancel = connection.prepareStatement("update tasks set status = 'CANCELLED' where id = ?")) {
                cancel.setObject(1, id);
                assertEquals(1, cancel.executeUpdate());
            }
            connection.rollback();
            connection.setAutoCommit(true);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        assertEquals(List.of(new Step(null, TaskStatus.PENDING, 0, null, null)),
                history.events(id, TaskScope.ALL).orElseThrow().stream().map(Step::of).toList());
    }

    @Test
    void aTaskOutOfScopeOrUnknownHasNoHistoryToRead() {
        Task owned = transitions.submit(new NewTask("noop", com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode(), 1, 0, null, null, null).ownedBy("somekey")).task();
        assertEquals(1, history.events(owned.id(), TaskScope.ownedBy("somekey")).orElseThrow().size());
        assertEquals(Optional.empty(), history.events(owned.id(), TaskScope.ownedBy("otherkey")));
        assertEquals(Optional.empty(), history.events(UUID.randomUUID(), TaskScope.ALL));
        // A task from before history was recorded (migration V8): a row from before V13 (its history all stored), none
        // stored. There, with no events.
        Sql.run(db, "update tasks set history_implied = false where id = ?", owned.id());
        Sql.run(db, "delete from task_event_log where task_id = ?", owned.id());
        assertEquals(List.of(), history.events(owned.id(), TaskScope.ALL).orElseThrow());
    }

    @Test
    void onlyTheNewestEventsAreReadOldestFirst() {
        UUID id = fixtures.pending().id();
        // Many cancel/retry rounds: more events than one read returns.
        for (int i = 0; i < TaskHistory.MAX_EVENTS / 2 + 5; i++) {
            transitions.cancel(id).orElseThrow();
            transitions.retry(id).orElseThrow();
        }
        List<TaskEvent> events = history.events(id, TaskScope.ALL).orElseThrow();
        assertEquals(TaskHistory.MAX_EVENTS, events.size());
        assertEquals(TaskStatus.PENDING, events.getLast().to(), "the newest event is last");
        assertTrue(events.stream().noneMatch(event -> event.from() == null), "the creation, the oldest, is left out");
    }
}

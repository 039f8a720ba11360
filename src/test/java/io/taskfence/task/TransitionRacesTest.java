package io.taskfence.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.store.StaleFenceException;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/**
 * Actors racing for the same rows, many times over: every race has exactly one winner, and the row
 * ends in the winner's state.
 */
@QuarkusTest
@TestServers
class TransitionRacesTest {

    private static final int TASKS = 200;
    private static final int RACERS = 8;
    private static final Duration BASE = Duration.ofSeconds(1);
    private static final Duration CAP = Duration.ofMinutes(10);

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;

    @Test
    void eightWorkersClaimingTheSameTasksClaimEachExactlyOnce() throws Exception {
        List<UUID> ids = enqueued(TASKS);
        Winners winners = new Winners();

        Race.run(RACERS, racer -> {
            List<UUID> order = new ArrayList<>(ids);
            Collections.shuffle(order);
            for (UUID id : order) {
                transitions.claim(id, "racer-" + racer, Duration.ofMinutes(1)).ifPresent(winners::won);
            }
        });

        winners.assertEachClaimedOnce(ids);
    }

    /**
     * Workers claim whole batches, and a message delivered twice puts one task into two batches: overlapping
     * batches in different orders must still give each task one winner, and must not deadlock (PostgreSQL
     * would abort one of two deadlocked statements, which the race would see as a failed claim).
     */
    @Test
    void eightWorkersClaimingOverlappingBatchesClaimEachTaskExactlyOnce() throws Exception {
        List<UUID> ids = enqueued(TASKS);
        Winners winners = new Winners();

        Race.run(RACERS, racer -> {
            List<UUID> order = new ArrayList<>(ids);
            Collections.shuffle(order);
            for (int from = 0; from < order.size(); from += 25) {
                // Each batch also names tasks of the next one, which other racers may be claiming.
                List<UUID> batch = order.subList(from, Math.min(order.size(), from + 40));
                transitions.claim(batch, "racer-" + racer, Duration.ofMinutes(1)).forEach(winners::won);
            }
        });

        winners.assertEachClaimedOnce(ids);
    }

    /**
     * Successes are written in batches while recovery expires leases: each task ends either SUCCEEDED by
     * its batch (which reports its claim as written) or FAILED by recovery (its claim reported not written).
     */
    @Test
    void batchedSuccessesRacingRecoveryLeaveEachTaskWithExactlyOneWinner() throws Exception {
        List<Claim> claims = lapsedClaims(TASKS / 2);
        Set<String> written = ConcurrentHashMap.newKeySet();
        String lock = "recovery-" + UUID.randomUUID();

        Race.run(2, racer -> {
            if (racer == 0) {
                for (int from = 0; from < claims.size(); from += 10) {
                    List<Completion> batch = claims.subList(from, Math.min(claims.size(), from + 10)).stream()
                            .map(claim -> new Completion(claim, null)).toList();
                    written.addAll(transitions.complete(batch));
                }
            } else {
                for (int round = 0; round < 20; round++) {
                    transitions.failExpiredLeases(TaskFixtures.fence(lock, 1), BASE, CAP);
                }
            }
        });
        transitions.failExpiredLeases(TaskFixtures.fence(lock, 1), BASE, CAP);

        for (Claim claim : claims) {
            assertEquals(written.contains(claim.claimId()) ? TaskStatus.SUCCEEDED : TaskStatus.FAILED,
                    queries.find(claim.taskId()).orElseThrow().status(), "task " + claim.taskId());
        }
    }

    /**
     * A cancel races a claim: the cancel wins either way (before the claim, which then loses; or after it,
     * from PROCESSING), so every task ends CANCELLED, and a claim won before the cancel can no longer write.
     */
    @Test
    void cancelRacingClaimEndsEachTaskCancelledWithItsClaimVoid() throws Exception {
        List<UUID> ids = enqueued(TASKS);
        Set<UUID> cancelled = ConcurrentHashMap.newKeySet();
        Map<UUID, Claim> claimed = new ConcurrentHashMap<>();

        Race.run(2, racer -> {
            for (UUID id : ids) {
                if (racer == 0 && transitions.cancel(id).isPresent()) {
                    cancelled.add(id);
                } else if (racer == 1) {
                    transitions.claim(id, "racer", Duration.ofMinutes(1)).ifPresent(claim -> claimed.put(id, claim));
                }
            }
        });

        assertEquals(Set.copyOf(ids), cancelled, "tasks the cancel lost");
        for (UUID id : ids) {
            assertEquals(TaskStatus.CANCELLED, queries.find(id).orElseThrow().status(), "task " + id);
        }
        for (Claim claim : claimed.values()) {
            assertTrue(!transitions.heartbeat(claim, Duration.ofMinutes(1)) && !transitions.complete(claim, null),
                    "the claim of cancelled task " + claim.taskId() + " still writes");
        }
    }

    /**
     * Running tasks cancelled while their workers write their successes, singly and in batches, from many
     * threads in different orders: each task has exactly one winner, and ends as that winner wrote it, a
     * CANCELLED task without a result, a SUCCEEDED one with its result.
     */
    @Test
    void cancelsRacingCompletionsLeaveEachRunningTaskWithExactlyOneWinner() throws Exception {
        List<Claim> claims = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            claims.add(fixtures.claimed());
        }
        Map<UUID, AtomicInteger> wins = new ConcurrentHashMap<>();
        Set<UUID> cancelled = ConcurrentHashMap.newKeySet();
        Set<UUID> completed = ConcurrentHashMap.newKeySet();

        Race.run(RACERS, racer -> {
            List<Claim> order = new ArrayList<>(claims);
            Collections.shuffle(order);
            for (int from = 0; from < order.size(); from += 10) {
                List<Claim> batch = order.subList(from, Math.min(order.size(), from + 10));
                if (racer % 2 == 0) {
                    for (Claim claim : batch) {
                        if (transitions.cancel(claim.taskId()).isPresent()) {
                            cancelled.add(claim.taskId());
                            wins.computeIfAbsent(claim.taskId(), any -> new AtomicInteger()).incrementAndGet();
                        }
                    }
                } else {
                    Set<String> written = transitions.complete(batch.stream().map(claim -> new Completion(claim,
                            JsonNodeFactory.instance.objectNode().put("by", racer))).toList());
                    for (Claim claim : batch) {
                        if (written.contains(claim.claimId())) {
                            completed.add(claim.taskId());
                            wins.computeIfAbsent(claim.taskId(), any -> new AtomicInteger()).incrementAndGet();
                        }
                    }
                }
            }
        });

        for (Claim claim : claims) {
            UUID id = claim.taskId();
            assertEquals(1, wins.getOrDefault(id, new AtomicInteger()).get(), "winners of task " + id);
            Task task = queries.find(id).orElseThrow();
            assertEquals(cancelled.contains(id) ? TaskStatus.CANCELLED : TaskStatus.SUCCEEDED, task.status(),
                    "task " + id);
            if (task.status() == TaskStatus.CANCELLED) {
                assertTrue(task.result() == null || task.result().isNull(), "a cancelled task has a result: " + task);
            } else {
                assertTrue(task.result() != null && task.result().has("by"), "a succeeded task lost its result: " + task);
            }
        }
        assertTrue(!cancelled.isEmpty() && !completed.isEmpty(), "one side won every race (cancelled "
                + cancelled.size() + ", completed " + completed.size() + "): nothing raced");
    }

    @Test
    void aWorkerCompletingWhileRecoveryExpiresItsLeaseHasExactlyOneWinner() throws Exception {
        List<Claim> claims = lapsedClaims(TASKS / 2);
        Set<UUID> completed = ConcurrentHashMap.newKeySet();
        String lock = "recovery-" + UUID.randomUUID();

        Race.run(2, racer -> {
            if (racer == 0) {
                for (Claim claim : claims) {
                    if (transitions.complete(claim, null)) {
                        completed.add(claim.taskId());
                    }
                }
            } else {
                for (int round = 0; round < 20; round++) {
                    transitions.failExpiredLeases(TaskFixtures.fence(lock, 1), BASE, CAP);
                }
            }
        });
        transitions.failExpiredLeases(TaskFixtures.fence(lock, 1), BASE, CAP); // whatever the racers left

        for (Claim claim : claims) {
            TaskStatus status = queries.find(claim.taskId()).orElseThrow().status();
            assertEquals(completed.contains(claim.taskId()) ? TaskStatus.SUCCEEDED : TaskStatus.FAILED, status,
                    "task " + claim.taskId());
        }
    }

    @Test
    void twoDispatchersNeverEnqueueATaskTwiceAndTheOlderTokenIsShutOut() throws Exception {
        String lock = "dispatch-" + UUID.randomUUID();
        List<UUID> mine = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            mine.add(fixtures.pending().id());
        }
        List<List<UUID>> batches = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger refusals = new AtomicInteger();

        Race.run(2, racer -> {
            long token = 100 + racer; // racer 1 is the newer holder
            for (int round = 0; round < 20; round++) {
                try {
                    batches.add(transitions.enqueueDue(TaskFixtures.fence(lock, token), 10));
                } catch (StaleFenceException e) {
                    refusals.incrementAndGet();
                }
            }
        });
        batches.add(transitions.enqueueDue(TaskFixtures.fence(lock, 101), 100_000));

        Set<UUID> seen = new HashSet<>();
        for (List<UUID> batch : batches) {
            for (UUID id : batch) {
                assertTrue(seen.add(id), "task " + id + " was enqueued twice");
            }
        }
        assertTrue(seen.containsAll(mine), "a due task was never enqueued");
        assertThrows(StaleFenceException.class, () -> transitions.enqueueDue(TaskFixtures.fence(lock, 100), 10),
                "the older token still writes after the newer one did");
        System.out.printf("older dispatcher refused %d times during the race%n", refusals.get());
    }

    /** The claims won in a race, by task: each task must be won once, and then be PROCESSING in attempt 1. */
    private final class Winners {

        private final Map<UUID, Claim> byTask = new ConcurrentHashMap<>();
        private final AtomicInteger twice = new AtomicInteger();

        void won(Claim claim) {
            if (byTask.putIfAbsent(claim.taskId(), claim) != null) {
                twice.incrementAndGet();
            }
        }

        void assertEachClaimedOnce(List<UUID> ids) {
            assertEquals(0, twice.get(), "tasks claimed twice");
            assertEquals(Set.copyOf(ids), byTask.keySet(), "tasks nobody claimed");
            for (UUID id : ids) {
                Task task = queries.find(id).orElseThrow();
                assertEquals(TaskStatus.PROCESSING, task.status());
                assertEquals(1, task.attempt(), "one claim, one attempt");
            }
        }
    }

    /** Claims whose processing lease has run out: recovery may take them while their workers finish. */
    private List<Claim> lapsedClaims(int count) {
        List<Claim> claims = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Claim claim = fixtures.claimed();
            fixtures.age(claim.taskId(), TaskFixtures.LEASE.plusSeconds(1));
            claims.add(claim);
        }
        return claims;
    }

    private List<UUID> enqueued(int count) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(fixtures.pending().id());
        }
        fixtures.enqueue(ids);
        return ids;
    }
}

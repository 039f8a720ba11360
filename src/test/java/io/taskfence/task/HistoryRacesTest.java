package io.taskfence.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.transition.Claim;
import io.taskfence.task.transition.Completion;
import io.taskfence.testing.TestServers;
import io.taskfence.task.query.TaskQueries;

/**
 * Many threads racing every kind of transition on the same few tasks: afterwards each task's history is one
 * unbroken chain from its creation to the status its row is in, with exactly one event per transition a racer
 * was told it won.
 */
@QuarkusTest
@TestServers
class HistoryRacesTest {

    private static final int TASKS = 40;
    private static final int RACERS = 8;
    private static final int ROUNDS = 150;

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskHistory history;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;

    @Test
    void racingTransitionsLeaveEachTaskAnUnbrokenHistoryWithOneEventPerWin() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            ids.add(fixtures.pending(100, null).id());
        }
        Set<UUID> mine = Set.copyOf(ids);
        Map<UUID, AtomicInteger> wins = new ConcurrentHashMap<>();
        ids.forEach(id -> wins.put(id, new AtomicInteger()));
        ConcurrentLinkedQueue<Claim> held = new ConcurrentLinkedQueue<>();
        String lock = "history-race-" + UUID.randomUUID();

        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(RACERS);
        try {
            List<Future<?>> racers = new ArrayList<>();
            for (int r = 0; r < RACERS; r++) {
                String name = "racer-" + r;
                racers.add(pool.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int round = 0; round < ROUNDS; round++) {
                        UUID id = ids.get(random.nextInt(ids.size()));
                        switch (random.nextInt(7)) {
                            case 0 -> transitions.cancel(id).ifPresent(task -> won(wins, id));
                            case 1 -> transitions.retry(id).ifPresent(task -> won(wins, id));
                            case 2 -> transitions.enqueueDue(TaskFixtures.fence(lock, 1), 10).stream()
                                    .filter(mine::contains).forEach(moved -> won(wins, moved));
                            case 3 -> {
                                List<UUID> batch = new ArrayList<>();
                                for (int i = 0; i < 5; i++) {
                                    batch.add(ids.get(random.nextInt(ids.size())));
                                }
                                for (Claim claim : transitions.claim(batch, name, TaskFixtures.LEASE)) {
                                    won(wins, claim.taskId());
                                    held.add(claim);
                                }
                            }
                            case 4 -> {
                                List<Completion> done = new ArrayList<>();
                                for (int i = 0; i < 3 && !held.isEmpty(); i++) {
                                    Claim claim = held.poll();
                                    if (claim != null) {
                                        done.add(new Completion(claim, null));
                                    }
                                }
                                Map<String, UUID> byClaim = new HashMap<>();
                                done.forEach(completion -> byClaim.put(completion.claim().claimId(),
                                        completion.claim().taskId()));
                                transitions.complete(done).forEach(claimId -> won(wins, byClaim.get(claimId)));
                            }
                            case 5 -> {
                                Claim claim = held.poll();
                                if (claim != null) {
                                    transitions.fail(claim, "racing failure", false, Duration.ZERO, Duration.ZERO)
                                            .ifPresent(to -> won(wins, claim.taskId()));
                                }
                            }
                            default -> {
                                Claim claim = held.poll();
                                if (claim != null) {
                                    transitions.later(claim, Duration.ZERO).ifPresent(to -> won(wins, claim.taskId()));
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> racer : racers) {
                racer.get();
            }
        } finally {
            pool.shutdownNow();
        }

        int total = 0;
        for (UUID id : ids) {
            List<TaskEvent> events = history.events(id, TaskScope.ALL).orElseThrow();
            assertNull(events.getFirst().from(), "task " + id + ": the first event is not its creation");
            assertEquals(TaskStatus.PENDING, events.getFirst().to());
            for (int i = 1; i < events.size(); i++) {
                assertEquals(events.get(i - 1).to(), events.get(i).from(), "task " + id + ": a gap before event " + i);
            }
            assertEquals(queries.find(id).orElseThrow().status(), events.getLast().to(), "task " + id);
            assertEquals(wins.get(id).get() + 1, events.size(), "task " + id + ": events besides its creation and wins");
            total += wins.get(id).get();
        }
        assertTrue(total > TASKS * 3, "too few transitions won to prove anything: " + total);
    }

    private static void won(Map<UUID, AtomicInteger> wins, UUID id) {
        wins.get(id).incrementAndGet();
    }
}

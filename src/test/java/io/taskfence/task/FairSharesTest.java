package io.taskfence.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A dispatch batch is shared between the owners with due tasks, in turns by their weights, whatever their
 * priorities; priority orders each owner's own tasks (DESIGN.md, "Dispatch", "Fair shares").
 */
@QuarkusTest
@TestServers
class FairSharesTest {

    private static final String BIG = ApiKeysForTests.FLOOD_KEY_NAME;
    private static final String SMALL = ApiKeysForTests.OTHER_SUBMIT_KEY_NAME;
    private static final String WEIGHTED = ApiKeysForTests.WEIGHTED_KEY_NAME;

    @Inject
    TaskTransitions transitions;

    /** Tasks other tests left due would take places in the batches: they are enqueued out of the way first. */
    @BeforeEach
    void nothingElseDue() {
        transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 1_000_000);
    }

    @Test
    void eachOwnerGetsATurnBeforeAnyGetsASecondWhateverItsPriority() {
        List<UUID> big = submit(BIG, 50, 1000);
        List<UUID> small = submit(SMALL, 3, -1000);
        List<UUID> ownerless = submit(null, 3, 0);

        List<UUID> batch = transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 6);

        Map<String, Long> shares = batch.stream().collect(Collectors.groupingBy(ownerOf(big, small, ownerless),
                Collectors.counting()));
        assertEquals(Map.of(BIG, 2L, SMALL, 2L, "none", 2L), shares, "a batch of 6 among 3 owners: " + batch);
        assertEquals(List.of(big.get(0), big.get(1)), batch.stream().filter(big::contains).toList(),
                "an owner's own tasks go in submission order at equal priority");
        List<UUID> rest = transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 7);
        assertEquals(Map.of(BIG, 5L, SMALL, 1L, "none", 1L), rest.stream().collect(Collectors.groupingBy(
                ownerOf(big, small, ownerless), Collectors.counting())), "the owners left with due tasks share the next");
    }

    @Test
    void aKeysWeightIsItsTasksATurn() {
        List<UUID> weighted = submit(WEIGHTED, 20, 0);
        List<UUID> big = submit(BIG, 20, 1000);

        List<UUID> batch = transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 8);

        assertEquals(6, batch.stream().filter(weighted::contains).count(), "weight 3 against 1, batch of 8: " + batch);
        assertEquals(2, batch.stream().filter(big::contains).count(), "weight 1 against 3, batch of 8: " + batch);
    }

    /** A type at its limit has room for one task a batch: each of two owners comes first one batch in two. */
    @Test
    void batchesWithFewerPlacesThanOwnersGoToEachOwnerInTurn() {
        List<UUID> big = submit(BIG, 30, 1000);
        List<UUID> small = submit(SMALL, 30, -1000);

        List<UUID> taken = new ArrayList<>();
        for (int batch = 0; batch < 20; batch++) {
            taken.addAll(transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 1));
        }

        // 10 each when the two are alone; a task another test left falling due meanwhile may take a place or two.
        long bigs = taken.stream().filter(big::contains).count();
        long smalls = taken.stream().filter(small::contains).count();
        assertTrue(bigs >= 8 && smalls >= 8, "twenty batches of one place: " + bigs + " and " + smalls);
    }

    @Test
    void priorityOrdersAnOwnersOwnTasks() {
        List<UUID> low = submit(SMALL, 3, -5);
        List<UUID> high = submit(SMALL, 3, 900);

        List<UUID> batch = transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 3);

        assertEquals(high, batch, "the owner's higher priority first");
        assertEquals(low, transitions.enqueueDue(TaskFixtures.fence("fair-" + UUID.randomUUID(), 1), 3));
    }

    /** Tasks due a millisecond apart, in their order: one insert gives them all the same now(). */
    private List<UUID> submit(String owner, int count, int priority) {
        Instant first = Instant.now().minusSeconds(60);
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new NewTask("noop", JsonNodeFactory.instance.objectNode().put("n", i), 5, priority,
                    first.plusMillis(i), null, null).ownedBy(owner));
        }
        return transitions.submitAll(tasks).stream().map(outcome -> ((Submission) outcome).task().id()).toList();
    }

    private static Function<UUID, String> ownerOf(List<UUID> big, List<UUID> small, List<UUID> ownerless) {
        return id -> big.contains(id) ? BIG : small.contains(id) ? SMALL : ownerless.contains(id) ? "none" : "other";
    }
}

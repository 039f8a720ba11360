package io.taskfence.task.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

/** The keys take turns at the actions job, and a key's actions take its turns in rotation (DESIGN.md, "Bulk actions"). */
class ActionTurnsTest {

    private static final Predicate<UUID> NONE_LAST = action -> false;

    @Test
    void aKeysSingleActionWaitsOneBatchOfEachOtherKeyNotOneOfEachOfTheirActions() {
        List<TaskActions.RunningAction> running = new ArrayList<>();
        Map<UUID, Integer> batchesLeft = new HashMap<>();
        List<UUID> ofA = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            UUID action = UUID.randomUUID();
            ofA.add(action);
            running.add(new TaskActions.RunningAction(action, "a"));
            batchesLeft.put(action, 3);
        }
        UUID ofB = UUID.randomUUID();
        running.add(new TaskActions.RunningAction(ofB, "b"));
        batchesLeft.put(ofB, 2);
        UUID ofNoKey = UUID.randomUUID();
        running.add(new TaskActions.RunningAction(ofNoKey, null));
        batchesLeft.put(ofNoKey, 1);

        ActionTurns turns = new ActionTurns();
        turns.begin(running, NONE_LAST);
        List<UUID> order = new ArrayList<>();
        while (!turns.isEmpty()) {
            order.add(turns.takeTurn(action -> batchesLeft.merge(action, -1, Integer::sum) > 0));
        }

        assertEquals(List.of(ofA.get(0), ofB, ofNoKey, ofA.get(1), ofB, ofA.get(2), ofA.get(3), ofA.get(4), ofA.get(0)),
                order.subList(0, 9), "keys in turn, a key's actions in rotation");
        assertEquals(5 * 3 + 2 + 1, order.size(), "each batch once");
        assertTrue(batchesLeft.values().stream().allMatch(left -> left == 0));
    }

    /**
     * A run may end after one batch (a batch that took the run's whole budget): the next starts with the key, and the
     * key's action, whose last turn is the longest ago, so every key's actions move on however long batches take.
     */
    @Test
    void oneBatchRunsGoRoundTheKeysAndEachKeysActions() {
        UUID firstOfA = UUID.randomUUID();
        UUID secondOfA = UUID.randomUUID();
        UUID ofB = UUID.randomUUID();
        UUID ofC = UUID.randomUUID();
        List<TaskActions.RunningAction> running = List.of(new TaskActions.RunningAction(firstOfA, "a"),
                new TaskActions.RunningAction(ofB, "b"), new TaskActions.RunningAction(secondOfA, "a"),
                new TaskActions.RunningAction(ofC, null));

        assertEquals(List.of(firstOfA, ofB, ofC, secondOfA, ofB, ofC, firstOfA), oneBatchRuns(running, NONE_LAST, 7));
    }

    /** A batch that throws has had its turn: the next run does not start with it again. */
    @Test
    void aBatchThatThrowsHasHadItsTurn() {
        UUID ofA = UUID.randomUUID();
        UUID ofB = UUID.randomUUID();
        List<TaskActions.RunningAction> running = List.of(new TaskActions.RunningAction(ofA, "a"),
                new TaskActions.RunningAction(ofB, "b"));
        ActionTurns turns = new ActionTurns();
        turns.begin(running, NONE_LAST);
        assertThrows(IllegalStateException.class, () -> turns.takeTurn(action -> {
            throw new IllegalStateException("a failed batch");
        }));
        turns.begin(running, NONE_LAST);
        assertEquals(ofB, turns.takeTurn(action -> true));
    }

    /**
     * An action that met rows a request holds goes after every other one: its key's others first, and a key with no
     * other after every other key; such keys take turns among themselves too.
     */
    @Test
    void actionsThatGoLastComeAfterTheOthersAndTakeTurnsAmongThemselves() {
        UUID heldOfA = UUID.randomUUID();
        UUID otherOfA = UUID.randomUUID();
        UUID heldOfB = UUID.randomUUID();
        UUID heldOfC = UUID.randomUUID();
        UUID ofD = UUID.randomUUID();
        List<TaskActions.RunningAction> running = List.of(new TaskActions.RunningAction(heldOfA, "a"),
                new TaskActions.RunningAction(heldOfB, "b"), new TaskActions.RunningAction(heldOfC, "c"),
                new TaskActions.RunningAction(otherOfA, "a"), new TaskActions.RunningAction(ofD, "d"));
        Set<UUID> held = Set.of(heldOfA, heldOfB, heldOfC);

        ActionTurns turns = new ActionTurns();
        turns.begin(running, held::contains);
        List<UUID> order = new ArrayList<>();
        while (!turns.isEmpty()) {
            order.add(turns.takeTurn(action -> false));
        }
        assertEquals(List.of(otherOfA, ofD, heldOfB, heldOfC, heldOfA), order);

        List<TaskActions.RunningAction> onlyHeld = running.subList(1, 3);
        assertEquals(List.of(heldOfB, heldOfC, heldOfB), oneBatchRuns(onlyHeld, held::contains, 3),
                "runs that reach one held action each do not always reach the same one");
    }

    /** The first turn of each of {@code runs} runs over the same {@code running} actions, each with more batches. */
    private static List<UUID> oneBatchRuns(List<TaskActions.RunningAction> running, Predicate<UUID> goesLast, int runs) {
        ActionTurns turns = new ActionTurns();
        List<UUID> firsts = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            turns.begin(running, goesLast);
            firsts.add(turns.takeTurn(action -> true));
        }
        return firsts;
    }
}

package io.taskfence.task.action;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/** The keys take turns at the actions job, and a key's actions take its turns in rotation (DESIGN.md, "Bulk actions"). */
class ActionTurnsTest {

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

        ActionTurns turns = new ActionTurns(running, null, action -> false);
        List<UUID> order = new ArrayList<>();
        while (!turns.isEmpty()) {
            order.add(turns.takeTurn(action -> batchesLeft.merge(action, -1, Integer::sum) > 0).action());
        }

        assertEquals(List.of(ofA.get(0), ofB, ofNoKey, ofA.get(1), ofB, ofA.get(2), ofA.get(3), ofA.get(4), ofA.get(0)),
                order.subList(0, 9), "keys in turn, a key's actions in rotation");
        assertEquals(5 * 3 + 2 + 1, order.size(), "each batch once");
        assertTrue(batchesLeft.values().stream().allMatch(left -> left == 0));
    }

    /**
     * A run may end after one batch (a batch that took the run's whole budget): the next run starts with the key after
     * the one that had the last turn, so each key's action moves on however long the oldest key's batches take.
     */
    @Test
    void eachRunStartsAfterTheKeyThatHadThePreviousRunsLastTurn() {
        UUID ofA = UUID.randomUUID();
        UUID ofB = UUID.randomUUID();
        UUID ofC = UUID.randomUUID();
        List<TaskActions.RunningAction> running = List.of(new TaskActions.RunningAction(ofA, "a"),
                new TaskActions.RunningAction(ofB, "b"), new TaskActions.RunningAction(ofC, null));

        List<UUID> firstTurns = new ArrayList<>();
        ActionTurns.Turn last = null;
        for (int run = 0; run < 4; run++) { // each run has time for one batch; every action has more
            last = new ActionTurns(running, last, action -> false).takeTurn(action -> true);
            firstTurns.add(last.action());
        }
        assertEquals(List.of(ofA, ofB, ofC, ofA), firstTurns, "the runs' single turns go round the keys");

        ActionTurns.Turn ofAKeyGone = new ActionTurns.Turn(UUID.randomUUID(), "gone");
        assertEquals(ofA, new ActionTurns(running, ofAKeyGone, action -> false).takeTurn(action -> true).action(),
                "a key no longer running: oldest first again");
    }

    /**
     * An action that met rows a request holds goes after every other one: its key's others first, and a key with no
     * other after every other key, wherever the rotation would have put it.
     */
    @Test
    void actionsThatGoLastComeAfterTheOthersWhereverTheTurnsStart() {
        UUID heldOfA = UUID.randomUUID();
        UUID otherOfA = UUID.randomUUID();
        UUID heldOfB = UUID.randomUUID();
        UUID ofC = UUID.randomUUID();
        List<TaskActions.RunningAction> running = List.of(new TaskActions.RunningAction(heldOfA, "a"),
                new TaskActions.RunningAction(heldOfB, "b"), new TaskActions.RunningAction(otherOfA, "a"),
                new TaskActions.RunningAction(ofC, "c"));
        Set<UUID> held = Set.of(heldOfA, heldOfB);

        // After a's turn, b's would come next: b has only a held action, so c goes first and b last.
        ActionTurns turns = new ActionTurns(running, new ActionTurns.Turn(otherOfA, "a"), held::contains);
        List<UUID> order = new ArrayList<>();
        while (!turns.isEmpty()) {
            order.add(turns.takeTurn(action -> false).action());
        }
        assertEquals(List.of(ofC, otherOfA, heldOfB, heldOfA), order);
    }
}

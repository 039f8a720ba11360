package io.taskfence.task.action;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The running actions' turns at the actions job (DESIGN.md, "Bulk actions"): the keys take turns, oldest first, and
 * a key's actions take its turns in rotation, one batch a turn. So a key's single action waits at most one batch of
 * each other key between two of its own, however many actions those keys run. A run may end after any batch (its
 * budget spent): the next run's turns start after the key whose turn was last, so that a batch longer than a run
 * does not give every run to the oldest key.
 */
public final class ActionTurns {

    /** A batch's turn: the action that had it, and its key (null: an action asked for without authentication). */
    public record Turn(UUID action, String key) {
    }

    private record Key(String name, Deque<UUID> actions) {
    }

    private final Deque<Key> keys = new ArrayDeque<>();

    /**
     * @param running oldest first, as {@link TaskActions#running()} reads them
     * @param previous the last turn of the previous run; null for none
     * @param goesLast the actions that take their turns after every other one (a key's, and a key with only those,
     *        after every other key)
     */
    public ActionTurns(List<TaskActions.RunningAction> running, Turn previous, Predicate<UUID> goesLast) {
        Map<String, List<UUID>> byKey = new LinkedHashMap<>();
        running.forEach(action -> byKey.computeIfAbsent(action.requestedBy(), key -> new ArrayList<>())
                .add(action.id()));
        List<Key> inTurn = new ArrayList<>();
        List<Key> after = new ArrayList<>();
        byKey.forEach((name, actions) -> {
            Deque<UUID> ordered = new ArrayDeque<>();
            actions.stream().filter(goesLast.negate()).forEach(ordered::addLast);
            actions.stream().filter(goesLast).forEach(ordered::addLast);
            (actions.stream().allMatch(goesLast) ? after : inTurn).add(new Key(name, ordered));
        });
        for (int i = 0; previous != null && i < inTurn.size(); i++) {
            if (Objects.equals(inTurn.get(i).name(), previous.key())) {
                Collections.rotate(inTurn, -(i + 1));
                break;
            }
        }
        keys.addAll(inTurn);
        keys.addAll(after);
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /**
     * Gives the next key's next action one batch: {@code step} does it and says whether the action has more. An
     * action without more leaves the turns, and so does a key without actions.
     *
     * @return the turn taken
     */
    public Turn takeTurn(Predicate<UUID> step) {
        Key key = keys.removeFirst();
        UUID action = key.actions().removeFirst();
        if (step.test(action)) {
            key.actions().addLast(action);
        }
        if (!key.actions().isEmpty()) {
            keys.addLast(key);
        }
        return new Turn(action, key.name());
    }
}

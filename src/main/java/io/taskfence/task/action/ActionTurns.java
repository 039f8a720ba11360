package io.taskfence.task.action;

import java.util.ArrayDeque;
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
     */
    public ActionTurns(List<TaskActions.RunningAction> running, Turn previous) {
        Map<String, Deque<UUID>> byKey = new LinkedHashMap<>();
        running.forEach(action -> byKey.computeIfAbsent(action.requestedBy(),
                key -> new ArrayDeque<>()).addLast(action.id()));
        byKey.forEach((name, actions) -> keys.addLast(new Key(name, actions)));
        if (previous != null && keys.stream().anyMatch(key -> Objects.equals(key.name(), previous.key()))) {
            Key moved;
            do {
                moved = keys.removeFirst();
                keys.addLast(moved);
            } while (!Objects.equals(moved.name(), previous.key()));
        }
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

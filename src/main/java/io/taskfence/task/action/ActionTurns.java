package io.taskfence.task.action;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The running actions' turns at the actions job (DESIGN.md, "Bulk actions"): the keys take turns, oldest first, and
 * a key's actions take its turns in rotation, one batch a turn. So a key's single action waits at most one batch of
 * each other key between two of its own, however many actions those keys run.
 */
public final class ActionTurns {

    private final Deque<Deque<UUID>> keys = new ArrayDeque<>();

    /** @param running oldest first, as {@link TaskActions#running()} reads them */
    public ActionTurns(List<TaskActions.RunningAction> running) {
        Map<String, Deque<UUID>> byKey = new LinkedHashMap<>();
        running.forEach(action -> byKey.computeIfAbsent(action.requestedBy(),
                key -> new ArrayDeque<>()).addLast(action.id()));
        keys.addAll(byKey.values());
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /**
     * Gives the next key's next action one batch: {@code step} does it and says whether the action has more. An
     * action without more leaves the turns, and so does a key without actions.
     *
     * @return the action that had the turn
     */
    public UUID takeTurn(Predicate<UUID> step) {
        Deque<UUID> key = keys.removeFirst();
        UUID action = key.removeFirst();
        if (step.test(action)) {
            key.addLast(action);
        }
        if (!key.isEmpty()) {
            keys.addLast(key);
        }
        return action;
    }
}

package io.taskfence.task.action;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The running actions' turns at the actions job (DESIGN.md, "Bulk actions"): the keys take turns, and a key's actions
 * take its turns in rotation, one batch a turn. So a key's single action waits at most one batch of each other key
 * between two of its own, however many actions those keys run. The rotation goes on across runs: a run may end after
 * any batch (its budget spent), and the next one starts with the key, and the key's action, whose last turn is the
 * longest ago (those that never had one first, oldest first), so a batch longer than a run does not give every run to
 * the oldest key. One object for the job's runs on this replica; runs are one at a time.
 */
public final class ActionTurns {

    private record Key(String name, Deque<UUID> actions) {
    }

    /** When each running key (by name; "" for none) and action last had a turn, in turns counted from 1. */
    private final Map<String, Long> keysServed = new ConcurrentHashMap<>();
    private final Map<UUID, Long> actionsServed = new ConcurrentHashMap<>();
    private final AtomicLong turnsTaken = new AtomicLong();
    private final Deque<Key> keys = new ArrayDeque<>();

    /**
     * Starts a run's turns.
     *
     * @param running oldest first, as {@link TaskActions#running()} reads them
     * @param goesLast the actions that take their turns after every other one (a key's, and a key with only those,
     *        after every other key): those whose last batch met rows a request holds
     */
    public void begin(List<TaskActions.RunningAction> running, Predicate<UUID> goesLast) {
        Map<String, List<UUID>> byKey = new LinkedHashMap<>();
        running.forEach(action -> byKey.computeIfAbsent(keyOf(action.requestedBy()), key -> new ArrayList<>())
                .add(action.id()));
        keysServed.keySet().retainAll(byKey.keySet());
        actionsServed.keySet().retainAll(running.stream().map(TaskActions.RunningAction::id).toList());
        keys.clear();
        // Stable sorts of lists in age order: never served (0) first, oldest first among equals.
        byKey.entrySet().stream()
                .sorted(Comparator.<Map.Entry<String, List<UUID>>, Boolean>comparing(
                        entry -> entry.getValue().stream().allMatch(goesLast))
                        .thenComparing(entry -> keysServed.getOrDefault(entry.getKey(), 0L)))
                .forEach(entry -> keys.addLast(new Key(entry.getKey(), new ArrayDeque<>(entry.getValue().stream()
                        .sorted(Comparator.<UUID, Boolean>comparing(goesLast::test)
                                .thenComparing(action -> actionsServed.getOrDefault(action, 0L)))
                        .toList()))));
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /**
     * Gives the next key's next action one batch: {@code step} does it and says whether the action has more. An
     * action without more leaves the turns, and so does a key without actions. The turn counts as taken before the
     * batch, so that a batch that throws does not keep the next run's first turn.
     *
     * @return the action that had the turn
     */
    public UUID takeTurn(Predicate<UUID> step) {
        Key key = keys.removeFirst();
        UUID action = key.actions().removeFirst();
        long turn = turnsTaken.incrementAndGet();
        keysServed.put(key.name(), turn);
        actionsServed.put(action, turn);
        if (step.test(action)) {
            key.actions().addLast(action);
        }
        if (!key.actions().isEmpty()) {
            keys.addLast(key);
        }
        return action;
    }

    private static String keyOf(String requestedBy) {
        return requestedBy == null ? "" : requestedBy; // asked for without authentication
    }
}

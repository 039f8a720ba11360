package io.taskfence.task.dependency;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * The dependencies between the items of one submission ({@code dependsOnItems}, by their places): the one graph check
 * that bulk submission (api) and the store (Submissions) both use (DESIGN.md, "Dependencies").
 */
public final class ItemGraph {

    private ItemGraph() {
    }

    /** The items on a cycle, in order; {@code waitsFor} maps each item to the items it waits for. */
    public static Set<Integer> cycles(Map<Integer, List<Integer>> waitsFor) {
        return ItemCycles.in(waitsFor);
    }

    /**
     * The items that cannot run because an item they wait for is refused ({@code refused}), and in turn the items that
     * wait for those: each with the refused item it names, in the order they were found.
     *
     * @param waitsFor each item not refused yet, with the items it waits for
     */
    public static Map<Integer, Integer> waitingForRefused(Map<Integer, List<Integer>> waitsFor, IntPredicate refused) {
        Map<Integer, Integer> found = new LinkedHashMap<>();
        boolean more = true;
        while (more) { // until no refusal leaves another item waiting for one that will not be stored
            more = false;
            for (Map.Entry<Integer, List<Integer>> item : new TreeMap<>(waitsFor).entrySet()) {
                if (found.containsKey(item.getKey()) || refused.test(item.getKey())) {
                    continue;
                }
                Optional<Integer> gone = item.getValue().stream()
                        .filter(named -> refused.test(named) || found.containsKey(named)).findFirst();
                if (gone.isPresent()) {
                    found.put(item.getKey(), gone.get());
                    more = true;
                }
            }
        }
        return found;
    }
}

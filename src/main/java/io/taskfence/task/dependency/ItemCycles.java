package io.taskfence.task.dependency;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The items of a batch that wait for themselves through others ({@code dependsOnItems}): the strongly connected
 * components of more than one item (Tarjan's algorithm). An item that only waits for such a cycle is not in it.
 */
final class ItemCycles {

    private final Map<Integer, List<Integer>> waitsFor;
    private final Map<Integer, Integer> order = new HashMap<>();
    private final Map<Integer, Integer> lowest = new HashMap<>();
    private final Deque<Integer> path = new ArrayDeque<>();
    private final Set<Integer> onPath = new TreeSet<>();
    private final Set<Integer> inCycles = new TreeSet<>();

    private ItemCycles(Map<Integer, List<Integer>> waitsFor) {
        this.waitsFor = waitsFor;
    }

    /** The items on a cycle, in order; {@code waitsFor} maps each item to the items it waits for. */
    static Set<Integer> in(Map<Integer, List<Integer>> waitsFor) {
        ItemCycles cycles = new ItemCycles(waitsFor);
        for (int item : new TreeSet<>(waitsFor.keySet())) {
            if (!cycles.order.containsKey(item)) {
                cycles.visit(item);
            }
        }
        return cycles.inCycles;
    }

    private void visit(int item) { // recursion at most as deep as a batch is long (1,000)
        order.put(item, order.size());
        lowest.put(item, order.get(item));
        path.push(item);
        onPath.add(item);
        for (int next : waitsFor.getOrDefault(item, List.of())) {
            if (!waitsFor.containsKey(next)) {
                continue; // refused already: not part of any cycle here
            }
            if (!order.containsKey(next)) {
                visit(next);
                lowest.put(item, Math.min(lowest.get(item), lowest.get(next)));
            } else if (onPath.contains(next)) {
                lowest.put(item, Math.min(lowest.get(item), order.get(next)));
            }
        }
        if (lowest.get(item).equals(order.get(item))) {
            Set<Integer> component = new TreeSet<>();
            int member;
            do {
                member = path.pop();
                onPath.remove(member);
                component.add(member);
            } while (member != item);
            if (component.size() > 1) {
                inCycles.addAll(component);
            }
        }
    }
}

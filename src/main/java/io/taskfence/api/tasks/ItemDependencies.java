package io.taskfence.api.tasks;

import static io.taskfence.api.tasks.BulkAnswer.Item.refused;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.ws.rs.core.UriInfo;

import io.taskfence.api.problem.Problem;
import io.taskfence.task.dependency.ItemGraph;
import io.taskfence.task.submit.NewTask;

/** The dependencies between the tasks of one bulk submission ({@code dependsOnItems}; cycles: {@link ItemCycles}). */
final class ItemDependencies {

    private ItemDependencies() {
    }

    /**
     * The accepted tasks of a batch, each waiting for the other items its {@code dependsOnItems} names (by their places
     * in the accepted list); refused, with its problem in {@code items}, a task that names no other item of the
     * request, one that was refused, or one in a cycle, and then the tasks that wait for it (DESIGN.md, "Task
     * lifecycle", "Dependencies"). {@code acceptedAt} is left with the places of the tasks kept.
     */
    static List<NewTask> withItemDependencies(List<BulkTask> tasks, BulkAnswer.Item[] items, List<NewTask> accepted,
            List<Integer> acceptedAt, UriInfo uri) {
        if (tasks.stream().allMatch(task -> task == null || task.dependsOnItems() == null
                || task.dependsOnItems().isEmpty())) {
            return accepted;
        }
        Map<Integer, List<Integer>> waitsFor = new HashMap<>();
        for (int index : acceptedAt) {
            List<Integer> named = Optional.ofNullable(tasks.get(index).dependsOnItems()).orElse(List.of());
            Optional<Integer> stranger = named.stream().filter(item -> item < 0 || item >= tasks.size() || item == index)
                    .findFirst();
            if (stranger.isPresent()) {
                items[index] = refused(index, Problem.invalid(List.of(new Problem.Violation("tasks[" + index
                        + "].dependsOnItems", "body", "must name other tasks of this request, 0 to " + (tasks.size() - 1)
                        + ", not " + stranger.get()))), uri);
            } else {
                waitsFor.put(index, named);
            }
        }
        for (int index : ItemGraph.cycles(waitsFor)) {
            items[index] = refused(index, Problem.unprocessable("dependsOnItems makes a cycle through tasks[" + index
                    + "]: none of its tasks could ever run").withField("tasks[" + index + "].dependsOnItems"), uri);
            waitsFor.remove(index);
        }
        // A refusal refuses the tasks that wait for it, and theirs.
        ItemGraph.waitingForRefused(waitsFor, item -> !waitsFor.containsKey(item)).forEach((index, gone) ->
                items[index] = refused(index, Problem.unprocessable("dependsOnItems names tasks[" + gone
                        + "], which was refused").withField("tasks[" + index + "].dependsOnItems"), uri));
        waitsFor.keySet().removeIf(index -> items[index] != null);
        List<NewTask> kept = new ArrayList<>();
        List<Integer> keptAt = new ArrayList<>();
        Map<Integer, Integer> placeOf = new HashMap<>();
        for (int n = 0; n < acceptedAt.size(); n++) {
            if (waitsFor.containsKey(acceptedAt.get(n))) {
                placeOf.put(acceptedAt.get(n), keptAt.size());
                keptAt.add(acceptedAt.get(n));
                kept.add(accepted.get(n));
            }
        }
        for (int n = 0; n < kept.size(); n++) {
            NewTask task = kept.get(n);
            List<Integer> places = waitsFor.get(keptAt.get(n)).stream().map(placeOf::get).toList();
            kept.set(n, task.waitingFor(new NewTask.Dependencies(task.dependencies().ids(), places,
                    task.dependencies().runIfOneFails())));
        }
        acceptedAt.clear();
        acceptedAt.addAll(keptAt);
        return kept;
    }
}

package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntFunction;

import io.taskfence.task.dependency.DependencyEdges;
import io.taskfence.task.dependency.DependencyEdges.Dependency;
import io.taskfence.task.dependency.ItemGraph;
import io.taskfence.task.submit.outcome.Submitted;
import io.taskfence.task.submit.outcome.UnmetDependency;

/**
 * The checks of a submission's dependencies (DESIGN.md, "Task lifecycle", "Dependencies") and the edges of the tasks
 * stored: which tasks a new one may wait for, under their locks.
 */
final class DependencyChecks {

    private DependencyChecks() {
    }

    /** Locks the tasks the submissions not refused yet depend on ({@link DependencyEdges#lock}). */
    static Map<UUID, Dependency> lockDependencies(Connection connection, List<NewTask> tasks, Submitted[] outcomes)
            throws SQLException {
        Set<DependencyEdges.Wanted> wanted = new HashSet<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (outcomes[i] == null) {
                String owner = tasks.get(i).owner();
                tasks.get(i).dependencies().ids().forEach(id -> wanted.add(new DependencyEdges.Wanted(id, owner)));
            }
        }
        return DependencyEdges.lock(connection, wanted);
    }

    /**
     * Marks {@link UnmetDependency} the tasks that depend on a task their owner does not have, on one that has ended
     * DEAD or CANCELLED while they would be cancelled by that, on the then task of the batch they join, or on an item
     * of the submission that is not stored: each would be a task that can never run.
     */
    static void refuseUnmetDependencies(List<NewTask> tasks, Map<UUID, Dependency> dependencies, UUID thenTask,
            Submitted[] outcomes) {
        Map<Integer, List<Integer>> waitsFor = new HashMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (outcomes[i] == null) {
                Optional<String> unmet = unmetId(tasks.get(i), dependencies, thenTask);
                outcomes[i] = unmet.map(UnmetDependency::new).orElse(null);
                waitsFor.put(i, tasks.get(i).dependencies().items());
            }
        }
        ItemGraph.waitingForRefused(waitsFor, item -> outcomes[item] != null).keySet().forEach(item -> outcomes[item] =
                new UnmetDependency("it depends on another task of this request, which is not stored"));
    }

    /** Why the task cannot wait for the tasks its ids name, if it cannot. */
    private static Optional<String> unmetId(NewTask task, Map<UUID, Dependency> dependencies, UUID thenTask) {
        for (UUID id : task.dependencies().ids()) {
            if (id.equals(thenTask)) {
                // The then task waits for every task of its batch, this one too: neither would ever run.
                return Optional.of("dependsOn names task " + id + ", the then task of the batch this task joins, which "
                        + "runs only once every task of the batch has ended: neither would ever run");
            }
            Dependency dependency = dependencies.get(id);
            if (dependency == null || !Objects.equals(dependency.owner(), task.owner())) {
                return Optional.of("dependsOn names task " + id + ", which "
                        + (task.owner() == null ? "does not exist" : "API key '" + task.owner() + "' does not have"));
            }
            if (dependency.failed() && !task.dependencies().runIfOneFails()) {
                return Optional.of("dependsOn names task " + id + ", which has ended " + dependency.status()
                        + ": this task would be cancelled at once (onDependencyFailure 'cancel'); send "
                        + "onDependencyFailure 'run' to run it anyway");
            }
        }
        return Optional.empty();
    }

    /** How many of the task's dependencies have not ended yet (the items submitted with it never have). */
    static int unended(NewTask task, Map<UUID, Dependency> dependencies) {
        return task.dependencies().items().size()
                + (int) task.dependencies().ids().stream().filter(id -> !dependencies.get(id).status().ended()).count();
    }

    /** The edges of the tasks inserted; those whose dependency had ended are resolved already. */
    static List<DependencyEdges.Edge> edges(UUID task, NewTask.Dependencies waitsFor,
            Map<UUID, Dependency> dependencies, IntFunction<UUID> itemId) {
        List<DependencyEdges.Edge> edges = new ArrayList<>();
        waitsFor.ids().forEach(id -> edges.add(new DependencyEdges.Edge(id, task, dependencies.get(id).status().ended())));
        waitsFor.items().forEach(item -> edges.add(new DependencyEdges.Edge(itemId.apply(item), task, false)));
        return edges;
    }
}

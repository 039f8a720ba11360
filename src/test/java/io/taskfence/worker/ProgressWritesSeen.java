package io.taskfence.worker;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.taskfence.task.TasksProgressed;

/** When each task's progress was written on this replica (nanoTime), as the writes' events tell, for tests. */
@ApplicationScoped
public class ProgressWritesSeen {

    private final Map<UUID, List<Long>> writes = new ConcurrentHashMap<>();

    void written(@Observes TasksProgressed progressed) {
        long now = System.nanoTime();
        progressed.taskIds().forEach(id -> writes.computeIfAbsent(id, any -> new CopyOnWriteArrayList<>()).add(now));
    }

    List<Long> of(UUID taskId) {
        return List.copyOf(writes.getOrDefault(taskId, List.of()));
    }
}

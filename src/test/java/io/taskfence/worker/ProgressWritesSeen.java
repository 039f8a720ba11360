package io.taskfence.worker;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.taskfence.task.TasksProgressed;

/** When and by which thread each task's progress was written on this replica, as the writes' events tell, for tests. */
@ApplicationScoped
public class ProgressWritesSeen {

    /** A write at {@code nanoTime}, by the progress ticker or by another thread (an attempt's end). */
    record Write(long nanoTime, boolean byTicker) {
    }

    private final Map<UUID, List<Write>> writes = new ConcurrentHashMap<>();

    void written(@Observes TasksProgressed progressed) {
        // The event is fired on the thread that wrote.
        Write write = new Write(System.nanoTime(), "progress-reports".equals(Thread.currentThread().getName()));
        progressed.taskIds().forEach(id -> writes.computeIfAbsent(id, any -> new CopyOnWriteArrayList<>()).add(write));
    }

    List<Write> of(UUID taskId) {
        return List.copyOf(writes.getOrDefault(taskId, List.of()));
    }
}

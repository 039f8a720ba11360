package io.taskfence.task.submit.outcome;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.taskfence.task.Task;

/**
 * What one materialisation of a schedule made ({@code JobSubmissions.submitOccurrences}).
 *
 * @param made the tasks inserted (an occurrence whose key was taken already made none)
 * @param overQuota the occurrences (their times) left out because they would have taken the schedule's owner past
 *        its quota
 * @param quota why, when {@code overQuota} is not empty
 */
public record OccurrenceTasks(List<Task> made, List<Instant> overQuota, Optional<OverQuota> quota) {

    /** Nothing made, nothing refused: the schedule had changed since it was read. */
    public static final OccurrenceTasks NONE = new OccurrenceTasks(List.of(), List.of(), Optional.empty());
}

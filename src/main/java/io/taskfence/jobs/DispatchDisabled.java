package io.taskfence.jobs;

import jakarta.inject.Singleton;

import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import io.taskfence.TaskfenceConfig;

/** Skips the fenced jobs on a replica that has {@code taskfence.dispatch.enabled=false}. */
@Singleton
class DispatchDisabled implements Scheduled.SkipPredicate {

    private final boolean enabled;

    DispatchDisabled(TaskfenceConfig config) {
        this.enabled = config.dispatch().enabled();
    }

    @Override
    public boolean test(ScheduledExecution execution) {
        return !enabled;
    }
}

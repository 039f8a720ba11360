package io.taskfence.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLease;
import io.taskfence.schedule.FirePlan;
import io.taskfence.schedule.InvalidCronException;
import io.taskfence.schedule.Schedule;
import io.taskfence.schedule.Schedules;
import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.task.Task;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.submit.outcome.OccurrenceTasks;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.transition.TransitionMeters;

/**
 * The schedules job (DESIGN.md, "Lock protocol (Redis)"): on one replica at a time, under the lock {@value JobLocks#SCHEDULES}, turns the
 * due occurrences of every schedule not paused into tasks, one fenced transaction per schedule
 * ({@link Schedules#materialise}), as its {@link FirePlan} says. An occurrence becomes one task at most:
 * its task carries the key {@code schedule:<name>:<occurrence>}, and the schedule moves past it in the same
 * transaction, only from the version that was read; a stale token writes nothing.
 */
@ApplicationScoped
class ScheduleOccurrences {

    /** Schedules taken per look at the table; a run goes on while it finds full batches and holds the lock. */
    static final int BATCH = 100;
    /**
     * Looks per run at most: a schedule the run could not move on (changed meanwhile, or an expression that no
     * longer reads) would be found again and again; the next tick goes on.
     */
    static final int BATCHES_PER_RUN = 10;
    /** On-time occurrences of one schedule made into tasks per transaction; the rest in the next. */
    static final int OCCURRENCES_PER_RUN = 1000;

    private static final Logger LOG = Logger.getLogger(ScheduleOccurrences.class);

    private final FencedJobs jobs;
    private final Schedules schedules;
    private final Dispatcher dispatcher;
    private final TransitionMeters transitions;
    private final MeterRegistry registry;
    private final Duration misfireThreshold;
    private final Map<String, Counter> created = new ConcurrentHashMap<>();
    private final Map<String, Counter> overQuota = new ConcurrentHashMap<>();

    ScheduleOccurrences(FencedJobs jobs, Schedules schedules, Dispatcher dispatcher, TransitionMeters transitions,
            MeterRegistry registry, TaskfenceConfig config) {
        this.jobs = jobs;
        this.schedules = schedules;
        this.dispatcher = dispatcher;
        this.transitions = transitions;
        this.registry = registry;
        this.misfireThreshold = config.schedules().misfireThreshold();
    }

    @Scheduled(identity = "schedules", every = "${taskfence.schedules.interval}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        jobs.run(JobLocks.SCHEDULES, Duration.ZERO, (held, fence) -> materialiseDue(fence, held, schedules.now()));
    }

    /**
     * Materialises what is due at {@code now} (PostgreSQL's time; tests pass any), while {@code held} is valid
     * (null: no lease to watch, for tests).
     *
     * @return the tasks made
     * @throws StaleFenceException if PostgreSQL refused the token; the schedule it was at is unchanged
     */
    int materialiseDue(FenceToken fence, FencedLease held, Instant now) {
        int made = 0;
        for (int batch = 0; batch < BATCHES_PER_RUN; batch++) {
            List<Schedule> due = schedules.due(now, BATCH);
            for (Schedule schedule : due) {
                if (held != null && !held.isValid()) {
                    return made;
                }
                made += materialise(fence, schedule, now);
            }
            if (due.size() < BATCH) {
                break; // every due schedule was seen; one changed meanwhile is read again at the next tick
            }
        }
        return made;
    }

    private int materialise(FenceToken fence, Schedule schedule, Instant now) {
        FirePlan plan;
        try {
            plan = FirePlan.of(schedule.times(), schedule.nextFireAt(), now, misfireThreshold, schedule.misfire(),
                    OCCURRENCES_PER_RUN);
        } catch (InvalidCronException e) {
            // Checked when stored; only a cron-utils upgrade that reads it differently gets here.
            LOG.errorf("schedule %s: %s; it is left as it is", schedule.name(), e.getMessage());
            return 0;
        }
        OccurrenceTasks tasks = schedules.materialise(fence, schedule, plan);
        if (!tasks.overQuota().isEmpty()) {
            overQuota.computeIfAbsent(schedule.name(), name -> Counter.builder("taskfence.schedules.over.quota")
                    .description("Occurrences of a schedule not made: they would have taken its owner past its quota")
                    .tag("schedule", name).register(registry)).increment(tasks.overQuota().size());
            OverQuota quota = tasks.quota().orElseThrow();
            LOG.warnf("schedule %s: %d occurrences not made, the first for %s: its owner, API key '%s', has %d "
                    + "unfinished tasks of its quota of %d", schedule.name(), tasks.overQuota().size(),
                    tasks.overQuota().getFirst(), quota.owner(), quota.unfinished(), quota.limit());
        }
        List<Instant> made = tasks.made().stream().map(Task::runAt).toList();
        if (!made.isEmpty()) {
            made.forEach(occurrence -> transitions.moved(TaskStatus.PENDING, schedule.type()));
            created.computeIfAbsent(schedule.name(), name -> Counter.builder("taskfence.schedules.tasks")
                    .description("Tasks made for the occurrences of a schedule").tag("schedule", name)
                    .register(registry)).increment(made.size());
            dispatcher.nudge();
            LOG.debugf("schedule %s: %d tasks made, the first for %s", schedule.name(), made.size(), made.getFirst());
        }
        return made.size();
    }
}

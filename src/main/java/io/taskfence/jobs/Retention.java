package io.taskfence.jobs;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.taskfence.JobSettings;
import io.taskfence.TaskfenceConfig;
import io.taskfence.audit.AuditLog;
import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;
import io.taskfence.task.FinishedTasks;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.batch.BatchCompletions;

/**
 * Keeps the task table and its indexes bounded, on one replica at a time (DESIGN.md, "Configuration", "Retention"):
 * finished tasks and their history are deleted once older than their status's age, then {@code dispatch_log}
 * rows older than theirs, batches completed longer ago than the SUCCEEDED age and audit log entries older than the
 * longest of the three ages (kept as long as any task history), a batch per fenced statement, until none is left or
 * the run has taken an interval (the next run carries on). Counted in {@code taskfence.retention.deleted} (tag
 * {@code status}) and {@code taskfence.retention.dispatch.log.deleted}; batches and audit entries are logged only.
 */
@ApplicationScoped
class Retention {

    private static final Logger LOG = Logger.getLogger(Retention.class);

    private final FencedJobs jobs;
    private final FinishedTasks finished;
    private final BatchCompletions batches;
    private final AuditLog audit;
    private final Map<TaskStatus, Duration> ages = new EnumMap<>(TaskStatus.class);
    private final Duration dispatchLogAge;
    private final Duration auditAge;
    private final int batchSize;
    private final Duration budget;
    private final Map<TaskStatus, Counter> deleted = new EnumMap<>(TaskStatus.class);
    private final Counter dispatchLogDeleted;

    Retention(FencedJobs jobs, FinishedTasks finished, BatchCompletions batches, AuditLog audit, TaskfenceConfig config,
            MeterRegistry registry) {
        this.jobs = jobs;
        this.finished = finished;
        this.batches = batches;
        this.audit = audit;
        JobSettings.Retention retention = config.retention();
        ages.put(TaskStatus.SUCCEEDED, retention.succeeded());
        ages.put(TaskStatus.DEAD, retention.dead());
        ages.put(TaskStatus.CANCELLED, retention.cancelled());
        this.dispatchLogAge = retention.dispatchLog();
        this.auditAge = ages.values().stream().max(Duration::compareTo).orElseThrow();
        this.batchSize = retention.batchSize();
        this.budget = retention.interval();
        for (TaskStatus status : ages.keySet()) {
            deleted.put(status, Counter.builder("taskfence.retention.deleted")
                    .description("Finished tasks deleted by retention, with their history").tag("status", status.name())
                    .register(registry));
        }
        this.dispatchLogDeleted = Counter.builder("taskfence.retention.dispatch.log.deleted")
                .description("dispatch_log rows deleted by retention").register(registry);
    }

    @Scheduled(identity = "retention", every = "${taskfence.retention.interval}", delayed = "10s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        run();
    }

    /** One run under the lock, if no other replica holds it. */
    void run() {
        jobs.run(JobLocks.RETENTION, Duration.ZERO, this::deleteOld);
    }

    void deleteOld(FencedLease held, FenceToken fence) {
        long stopAt = System.nanoTime() + budget.toNanos();
        Map<TaskStatus, Integer> counts = new EnumMap<>(TaskStatus.class);
        int logRows = 0;
        int batchRows = 0;
        int auditRows = 0;
        // A batch of each kind in turn, so that a large backlog of one does not hold up the others' deletes.
        Map<TaskStatus, FinishedTasks.Position> moreTasks = new EnumMap<>(TaskStatus.class);
        ages.keySet().forEach(status -> moreTasks.put(status, FinishedTasks.Position.START));
        boolean moreLog = true;
        boolean moreBatches = true;
        boolean moreAudit = true;
        do {
            for (TaskStatus status : List.copyOf(moreTasks.keySet())) {
                FinishedTasks.Deleted batch = finished.deleteOlderThan(fence, status, ages.get(status),
                        moreTasks.get(status), batchSize);
                deleted.get(status).increment(batch.tasks());
                counts.merge(status, batch.tasks(), Integer::sum);
                batch.next().ifPresentOrElse(next -> moreTasks.put(status, next), () -> moreTasks.remove(status));
            }
            if (moreLog) {
                int batch = finished.deleteDispatchLogOlderThan(fence, dispatchLogAge, batchSize);
                dispatchLogDeleted.increment(batch);
                logRows += batch;
                moreLog = batch == batchSize;
            }
            if (moreBatches) {
                int batch = batches.deleteCompletedBefore(fence, ages.get(TaskStatus.SUCCEEDED), batchSize);
                batchRows += batch;
                moreBatches = batch == batchSize;
            }
            if (moreAudit) {
                int batch = audit.deleteOlderThan(fence, auditAge, batchSize);
                auditRows += batch;
                moreAudit = batch == batchSize;
            }
        } while ((moreLog || moreBatches || moreAudit || !moreTasks.isEmpty()) && held.mayGoOnUntil(stopAt));
        if (counts.values().stream().anyMatch(count -> count > 0) || logRows > 0 || batchRows > 0 || auditRows > 0) {
            LOG.infof("retention: deleted finished tasks %s, %d dispatch_log rows, %d completed batches and %d audit "
                    + "log entries", counts, logRows, batchRows, auditRows);
        }
    }
}

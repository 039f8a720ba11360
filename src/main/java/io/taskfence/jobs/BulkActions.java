package io.taskfence.jobs;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.scheduler.Scheduled;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;
import io.taskfence.store.TaskStoreException;
import io.taskfence.task.action.ActionTurns;
import io.taskfence.task.action.TaskActions;

/**
 * Works through the running bulk actions, on one replica at a time (DESIGN.md, "Bulk actions"): every
 * {@code taskfence.actions.interval}, a fenced batch at a time, the keys taking turns ({@link ActionTurns}), until no
 * action has more, the lease is lost or the run has taken an interval, which is looked at before every batch (the
 * next run carries on where the last batch ended, and with the keys whose last turn is the longest ago).
 */
@ApplicationScoped
class BulkActions {

    private static final Logger LOG = Logger.getLogger(BulkActions.class);

    private final FencedJobs jobs;
    private final TaskActions actions;
    private final Duration budget;
    private final int batchSize;
    /**
     * The actions whose last batch met a row a request holds: they take their turns after the others (their key's, and
     * every other key's if they are all their key has), so that a wait of taskfence.job-lock-timeout (longer than a
     * run's budget by default) does not spend each run on them.
     */
    private final Set<UUID> metHeldRows = ConcurrentHashMap.newKeySet();
    /** The turns, carried from run to run on this replica. */
    private final ActionTurns turns = new ActionTurns();

    BulkActions(FencedJobs jobs, TaskActions actions, TaskfenceConfig config) {
        this.jobs = jobs;
        this.actions = actions;
        this.budget = config.actions().interval();
        this.batchSize = config.actions().batchSize();
    }

    @Scheduled(identity = "actions", every = "${taskfence.actions.interval}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = DispatchDisabled.class)
    void onTimer() {
        run();
    }

    /** One run under the lock, if no other replica holds it. */
    void run() {
        jobs.run(JobLocks.ACTIONS, Duration.ZERO, this::work);
    }

    void work(FencedLease held, FenceToken fence) {
        long stopAt = System.nanoTime() + budget.toNanos();
        List<TaskActions.RunningAction> running = actions.running();
        metHeldRows.retainAll(running.stream().map(TaskActions.RunningAction::id).toList());
        turns.begin(running, metHeldRows::contains);
        while (!turns.isEmpty() && held.mayGoOnUntil(stopAt)) {
            turns.takeTurn(action -> {
                boolean more;
                try {
                    more = actions.step(fence, action, batchSize);
                } catch (TaskStoreException e) {
                    if (!e.lockTimedOut()) {
                        throw e;
                    }
                    // A request holds a row of this action's batch (taskfence.job-lock-timeout): the batch wrote
                    // nothing; this action sits out the rest of the run and goes last in the next ones, so that the
                    // other keys' actions go on.
                    LOG.infof("actions: bulk action %s waits for rows a request holds, until the next run", action);
                    metHeldRows.add(action);
                    return false;
                }
                metHeldRows.remove(action);
                if (!more) {
                    LOG.infof("actions: bulk action %s done", action);
                }
                return more;
            });
        }
    }
}

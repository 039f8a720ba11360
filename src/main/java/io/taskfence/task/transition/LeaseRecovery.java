package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.BACKOFF;
import static io.taskfence.task.transition.TransitionSql.EXHAUSTED;
import static io.taskfence.task.transition.TransitionSql.TIMED_OUT;
import static io.taskfence.task.transition.TransitionSql.movedRows;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;

import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TaskHistory;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TasksEnded;

/**
 * The recovery job's transitions, each one fenced statement: a task whose queue message was lost goes back to
 * PENDING, and a task whose worker stopped renewing its lease fails (DESIGN.md, "Queue (Redis)").
 */
@ApplicationScoped
public class LeaseRecovery {

    private final TaskDatabase database;
    private final TransitionMeters meters;
    private final Event<TasksEnded> ended;

    LeaseRecovery(TaskDatabase database, TransitionMeters meters, Event<TasksEnded> ended) {
        this.database = database;
        this.meters = meters;
        this.ended = ended;
    }

    /**
     * ENQUEUED for longer than {@code timeout} and not among {@code stillQueued} (the tasks whose messages
     * the queue holds) → PENDING: its message was lost (a crash between commit and push, or Redis lost the
     * stream). A task merely waiting in a long queue keeps its place. Rows another transaction holds (a
     * claim) are skipped, never waited for, so it cannot deadlock with one.
     *
     * @return how many tasks went back to PENDING
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public int requeueStaleEnqueued(FenceToken fence, Duration timeout, Collection<UUID> stillQueued) {
        List<TransitionMeters.Moved> requeued = database.fenced(fence, connection -> {
            try (PreparedStatement requeue = connection.prepareStatement("with stale as (select id from tasks "
                    + "join tasks_in_flight on task_id = id where status = 'ENQUEUED' "
                    + "and updated_at < now() - ? * interval '1 millisecond' and id <> all(?) "
                    + "order by id for update of tasks skip locked) "
                    + "update tasks set status = 'PENDING', updated_at = now(), " + TaskHistory.IMPLIED_EVENTS_CLEARED + " "
                    + "where id = any(array(select id from stale)) and status = 'ENQUEUED' returning status, type")) {
                requeue.setLong(1, timeout.toMillis());
                requeue.setArray(2, connection.createArrayOf("uuid", stillQueued.toArray()));
                return movedRows(requeue);
            }
        });
        meters.moved(requeued);
        return requeued.size();
    }

    /**
     * PROCESSING past its lease (its worker died or stalled, or a remote claim reached its time-out, where its lease
     * ends) → FAILED with a backoff, or DEAD if that was the last attempt: the lapsed attempt counts. Rows another transaction holds (a batch of successes being
     * written, which locks its rows in another order) are skipped, never waited for, so the two cannot
     * deadlock; a skipped row whose write then fails is taken at the next run.
     *
     * @return how many tasks were recovered
     * @throws StaleFenceException if PostgreSQL refused the token; nothing was changed
     */
    public int failExpiredLeases(FenceToken fence, Duration backoffBase, Duration backoffCap) {
        record Recovered(TaskStatus to, String type, UUID id) {
        }
        List<Recovered> recovered = database.fenced(fence, connection -> {
            try (PreparedStatement recover = connection.prepareStatement("with expired as (select id from tasks "
                    + "join tasks_in_flight on task_id = id where status = 'PROCESSING' and lease_until < now() "
                    + "order by id for update of tasks skip locked) "
                    + "update tasks set status = case when " + EXHAUSTED + " then 'DEAD' else 'FAILED' end, "
                    + TaskHistory.IMPLIED_EVENTS_CLEARED + ", "
                    + "run_at = " + BACKOFF + ", "
                    // The claim id names the pod; the error is the tenant's to read, the event's worker the operators'.
                    // A remote claim's lease ends at its time-out at the latest: then the attempt timed out.
                    + "last_error = case when timeout_at <= lease_until then " + TIMED_OUT + " else "
                    + "'processing lease expired: its worker stopped before finishing' end, "
                    + "lease_until = null, updated_at = now() where id = any(array(select id from expired)) "
                    + "and status = 'PROCESSING' and lease_until < now() returning status, type, id")) {
                recover.setLong(1, backoffCap.toMillis());
                recover.setLong(2, backoffBase.toMillis());
                try (ResultSet row = recover.executeQuery()) {
                    List<Recovered> rows = new ArrayList<>();
                    while (row.next()) {
                        rows.add(new Recovered(TaskStatus.valueOf(row.getString(1)), row.getString(2),
                                row.getObject(3, UUID.class)));
                    }
                    return rows;
                }
            }
        });
        meters.moved(recovered.stream().map(row -> new TransitionMeters.Moved(row.to(), row.type())).toList());
        List<UUID> dead = recovered.stream().filter(row -> row.to() == TaskStatus.DEAD).map(Recovered::id).toList();
        if (!dead.isEmpty()) {
            ended.fire(new TasksEnded(dead));
        }
        return recovered.size();
    }
}

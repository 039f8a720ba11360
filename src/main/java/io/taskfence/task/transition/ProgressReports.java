package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.CURRENT_CLAIM;
import static io.taskfence.task.transition.TransitionSql.NOT_TIMED_OUT;
import static io.taskfence.task.transition.TransitionSql.bindClaim;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TasksProgressed;

/**
 * Progress from running attempts (DESIGN.md, "Task lifecycle", "Progress"): a report is kept in memory, the latest
 * replacing the one before, and written to its task at most once a second per task, many tasks in one statement,
 * under the claim's condition (a report of a claim that no longer holds its task is dropped). A report costs the
 * handler no wait; a task's first is written within a tick. Nothing here changes a task's status.
 */
@ApplicationScoped
public class ProgressReports {

    /** The largest report, as JSON text in UTF-8. */
    public static final int MAX_BYTES = 4096;
    private static final Logger LOG = Logger.getLogger(ProgressReports.class);
    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long TICK_MILLIS = 100;
    private static final String WRITE = "update tasks set progress = report.progress::jsonb, progress_at = now() "
            + "from unnest(?::uuid[], ?::int[], ?::text[], ?::text[]) as report(id, attempt, worker, progress) "
            + "where tasks.id = report.id and tasks.status = 'PROCESSING' and tasks.attempt = report.attempt "
            + "and tasks.worker = report.worker and " + NOT_TIMED_OUT + " returning tasks.id";

    private record Report(Claim claim, String json) {
    }

    private final TaskDatabase database;
    private final TaskRows rows;
    private final Event<TasksProgressed> progressed;
    private final Map<UUID, Report> waiting = new ConcurrentHashMap<>();
    /** When each task's report was last written here (nanoTime); forgotten a second later. */
    private final Map<UUID, Long> writtenAt = new ConcurrentHashMap<>();
    private ScheduledExecutorService ticker;

    ProgressReports(TaskDatabase database, TaskRows rows, Event<TasksProgressed> progressed) {
        this.database = database;
        this.rows = rows;
        this.progressed = progressed;
    }

    void start(@Observes StartupEvent started) {
        ticker = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("progress-reports").daemon().factory());
        ticker.scheduleWithFixedDelay(this::writeDue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Keeps {@code progress} as the claim's latest report, to be written within a second.
     *
     * @throws IllegalArgumentException if its JSON is over {@value #MAX_BYTES} bytes
     */
    public void report(Claim claim, ObjectNode progress) {
        keep(new Report(claim, checked(progress)));
    }

    /**
     * {@link #report}, if the claim still holds its task (PROCESSING under it, not timed out), as PostgreSQL reads now:
     * a remote worker's report, which is answered 409 if not.
     *
     * @return whether the claim holds its task, and the report was kept
     * @throws IllegalArgumentException if its JSON is over {@value #MAX_BYTES} bytes
     */
    public boolean reportIfHeld(Claim claim, ObjectNode progress) {
        String json = checked(progress);
        boolean held = database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select 1 from tasks where " + CURRENT_CLAIM)) {
                bindClaim(select, 1, claim);
                try (ResultSet row = select.executeQuery()) {
                    return row.next();
                }
            }
        });
        if (held) {
            keep(new Report(claim, json));
        }
        return held;
    }

    /** The task's latest report, unless one of a later attempt waits already (a lost attempt's handler may run on). */
    private void keep(Report report) {
        waiting.merge(report.claim().taskId(), report,
                (before, now) -> before.claim().attempt() > now.claim().attempt() ? before : now);
    }

    private String checked(ObjectNode progress) {
        String json = rows.write(progress);
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("a progress report is at most " + MAX_BYTES + " bytes of JSON, not "
                    + bytes);
        }
        return json;
    }

    /** Writes the claim's waiting report now, if it has one: called before its attempt's end, which it would miss. */
    public void flush(Claim claim) {
        Report report = waiting.get(claim.taskId());
        if (report != null && report.claim().attempt() == claim.attempt()
                && report.claim().claimId().equals(claim.claimId()) && waiting.remove(claim.taskId(), report)) {
            write(List.of(report));
        }
    }

    /** On the ticker: writes every report whose task was not written in the last second. */
    private void writeDue() {
        long now = System.nanoTime();
        writtenAt.values().removeIf(at -> now - at >= EVERY_NANOS);
        if (waiting.isEmpty()) {
            return;
        }
        List<Report> due = new ArrayList<>();
        waiting.forEach((taskId, report) -> {
            // remove(key, value): a report that came meanwhile stays for the next tick.
            if (!writtenAt.containsKey(taskId) && waiting.remove(taskId, report)) {
                due.add(report);
            }
        });
        try {
            write(due);
        } catch (RuntimeException e) {
            LOG.warnf("writing %d progress reports failed, they are dropped: %s", due.size(), e.getMessage());
        }
    }

    private void write(List<Report> reports) {
        if (reports.isEmpty()) {
            return;
        }
        // Rows are locked in id order, as claims and completions lock them.
        List<Report> ordered = reports.stream().sorted(Comparator.comparing(report -> report.claim().taskId())).toList();
        List<UUID> written = database.inConnection(connection -> {
            try (PreparedStatement update = connection.prepareStatement(WRITE)) {
                update.setArray(1, connection.createArrayOf("uuid",
                        ordered.stream().map(report -> report.claim().taskId()).toArray()));
                update.setArray(2, connection.createArrayOf("int4",
                        ordered.stream().map(report -> report.claim().attempt()).toArray()));
                update.setArray(3, connection.createArrayOf("text",
                        ordered.stream().map(report -> report.claim().claimId()).toArray()));
                update.setArray(4, connection.createArrayOf("text", ordered.stream().map(Report::json).toArray()));
                List<UUID> ids = new ArrayList<>();
                try (ResultSet row = update.executeQuery()) {
                    while (row.next()) {
                        ids.add(row.getObject(1, UUID.class));
                    }
                }
                return ids;
            }
        });
        long now = System.nanoTime(); // after the write: the next one starts a second after this one ended
        ordered.forEach(report -> writtenAt.put(report.claim().taskId(), now));
        if (!written.isEmpty()) {
            progressed.fire(new TasksProgressed(written));
        }
    }

    void stop(@Observes ShutdownEvent stopped) {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        try {
            writeDueNow();
        } catch (RuntimeException e) {
            LOG.debugf("the last progress reports were not written: %s", e.getMessage());
        }
    }

    /** At shutdown: whatever waits, regardless of the last write. */
    private void writeDueNow() {
        List<Report> all = new ArrayList<>(waiting.values());
        waiting.clear();
        write(all);
    }
}

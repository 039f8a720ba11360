package io.taskfence.task.transition;

import static io.taskfence.task.transition.TransitionSql.CURRENT_CLAIM;
import static io.taskfence.task.transition.TransitionSql.NOT_TIMED_OUT;
import static io.taskfence.task.transition.TransitionSql.bindClaim;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.store.TaskDatabase;
import io.taskfence.task.StorableJson;
import io.taskfence.task.TaskRows;
import io.taskfence.task.TasksProgressed;

/**
 * Progress from running attempts (DESIGN.md, "Task lifecycle", "Progress"): a report is kept in memory, the latest
 * replacing the one before, and written to its task at most once a second per task, up to 500 tasks a statement,
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
    private static final int CHUNK = 500;
    /** The rows are locked in id order (as claims lock them), then written where the claim still holds. */
    private static final String WRITE = "with locked as (select tasks.id, report.progress from unnest(?::uuid[], "
            + "?::int[], ?::text[], ?::text[]) as report(id, attempt, worker, progress) join tasks on tasks.id = report.id "
            + "and tasks.status = 'PROCESSING' and tasks.attempt = report.attempt and tasks.worker = report.worker and "
            + NOT_TIMED_OUT + " order by tasks.id for update of tasks) update tasks set progress = locked.progress::jsonb, "
            + "progress_at = now() from locked where tasks.id = locked.id returning tasks.id";

    /** Whose report: one claim of one task (a lost attempt's handler may still report beside the next claim's). */
    private record ClaimKey(UUID taskId, int attempt, String claimId) {
        static ClaimKey of(Claim claim) {
            return new ClaimKey(claim.taskId(), claim.attempt(), claim.claimId());
        }
    }

    private record Report(ClaimKey claim, String json) {
    }

    private final TaskDatabase database;
    private final TaskRows rows;
    private final Event<TasksProgressed> progressed;
    private final Map<ClaimKey, Report> waiting = new ConcurrentHashMap<>();
    /** When each task's report was last written here (nanoTime); forgotten a second later. */
    private final Map<UUID, Long> writtenAt = new ConcurrentHashMap<>();
    /** The ticker's write under way, by task: an attempt's last report is written after it, never under it. */
    private final Map<ClaimKey, CompletableFuture<Void>> underWay = new ConcurrentHashMap<>();
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
     * @throws IllegalArgumentException if it is null, over {@value #MAX_BYTES} bytes of JSON, or holds what a task's
     *         JSON may not ({@link StorableJson#firstProblem})
     */
    public void report(Claim claim, ObjectNode progress) {
        Report report = new Report(ClaimKey.of(claim), checked(progress));
        waiting.put(report.claim(), report);
    }

    /**
     * {@link #report}, if the claim still holds its task (PROCESSING under it, not timed out), as PostgreSQL reads now:
     * a remote worker's report, which is answered 409 if not.
     *
     * @return whether the claim holds its task, and the report was kept
     * @throws IllegalArgumentException as {@link #report} does
     */
    public boolean reportIfHeld(Claim claim, ObjectNode progress) {
        Report report = new Report(ClaimKey.of(claim), checked(progress));
        boolean held = database.inConnection(connection -> {
            try (PreparedStatement select = connection.prepareStatement("select 1 from tasks where " + CURRENT_CLAIM)) {
                bindClaim(select, 1, claim);
                try (ResultSet row = select.executeQuery()) {
                    return row.next();
                }
            }
        });
        if (held) {
            waiting.put(report.claim(), report);
        }
        return held;
    }

    private String checked(ObjectNode progress) {
        if (progress == null) {
            throw new IllegalArgumentException("a progress report is a JSON object, not null");
        }
        StorableJson.firstProblem(progress, "progress").ifPresent(problem -> {
            throw new IllegalArgumentException("a progress report cannot hold " + problem);
        });
        String json = rows.write(progress);
        int bytes = json.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("a progress report is at most " + MAX_BYTES + " bytes of JSON, not "
                    + bytes);
        }
        return json;
    }

    /**
     * Writes the claim's waiting report now, after a write of the ticker's under way for it: called before the
     * attempt's end, which the ticker's write would miss.
     */
    public void flush(Claim claim) {
        ClaimKey key = ClaimKey.of(claim);
        Report last = waiting.remove(key); // before the wait: the ticker marks what it takes before it takes it
        CompletableFuture<Void> ticking = underWay.get(key);
        if (ticking != null) {
            ticking.join();
        }
        if (last != null) {
            write(List.of(last));
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
        CompletableFuture<Void> done = new CompletableFuture<>();
        waiting.forEach((key, report) -> {
            if (writtenAt.containsKey(key.taskId())) {
                return;
            }
            underWay.put(key, done);
            // remove(key, value): a report that came meanwhile stays for the next tick; one a flush took is its.
            if (waiting.remove(key, report)) {
                due.add(report);
            } else {
                underWay.remove(key, done);
            }
        });
        try {
            // Chunks: one statement's work does not grow with the claims a replica holds (remote workers may hold many).
            for (int from = 0; from < due.size(); from += CHUNK) {
                List<Report> chunk = due.subList(from, Math.min(due.size(), from + CHUNK));
                try {
                    write(chunk);
                } catch (RuntimeException e) {
                    LOG.warnf("writing %d progress reports failed, they are dropped: %s", chunk.size(), e.getMessage());
                }
            }
        } finally {
            due.forEach(report -> underWay.remove(report.claim(), done));
            done.complete(null);
        }
    }

    private void write(List<Report> reports) {
        if (reports.isEmpty()) {
            return;
        }
        List<UUID> written = database.inConnection(connection -> {
            try (PreparedStatement update = connection.prepareStatement(WRITE)) {
                update.setArray(1, connection.createArrayOf("uuid",
                        reports.stream().map(report -> report.claim().taskId()).toArray()));
                update.setArray(2, connection.createArrayOf("int4",
                        reports.stream().map(report -> report.claim().attempt()).toArray()));
                update.setArray(3, connection.createArrayOf("text",
                        reports.stream().map(report -> report.claim().claimId()).toArray()));
                update.setArray(4, connection.createArrayOf("text", reports.stream().map(Report::json).toArray()));
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
        reports.forEach(report -> writtenAt.put(report.claim().taskId(), now));
        if (!written.isEmpty()) {
            progressed.fire(new TasksProgressed(written));
        }
    }

    /** After the workers' drain (default priority), whose handlers may report to their end. */
    void stop(@Observes @Priority(Interceptor.Priority.APPLICATION + 500) ShutdownEvent stopped) {
        if (ticker != null) {
            ticker.shutdown();
            try {
                ticker.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<Report> all = new ArrayList<>(waiting.values());
        waiting.clear();
        for (int from = 0; from < all.size(); from += CHUNK) {
            try {
                write(all.subList(from, Math.min(all.size(), from + CHUNK)));
            } catch (RuntimeException e) {
                LOG.debugf("the last progress reports were not written: %s", e.getMessage());
            }
        }
    }
}

package io.taskfence.bench;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;

import io.taskfence.testing.PackagedService;

/**
 * What the history job (docs/history.md) costs: the time of its runs on the replicas (the timer
 * {@code taskfence.history.fold}, summed over them: only the lock's holder runs it) from a drain's end until it has
 * folded that drain's tasks, per 10,000 tasks. Runs that found nothing to do are in it too.
 */
final class HistoryFoldCost {

    private HistoryFoldCost() {
    }

    /** The replicas' fold time so far, in seconds. */
    static double foldSeconds(List<PackagedService> replicas) throws Exception {
        double seconds = 0;
        for (PackagedService replica : replicas) {
            seconds += replica.get("/q/metrics").body().lines()
                    .filter(line -> line.startsWith("taskfence_history_fold_seconds_sum"))
                    .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
        }
        return seconds;
    }

    /**
     * Waits until the history job has passed the {@code tasks} tasks committed at {@code committed} (its
     * {@code folded_until} is later) and has nothing left unfinished, then records its runs' time since {@code before}
     * per 10,000 tasks.
     */
    static void record(List<PackagedService> replicas, Connection db, int tasks, OffsetDateTime committed,
            double before) throws Exception {
        await("the history job folded " + tasks + " tasks").atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> count(db, "select count(*) from work_history_progress where folded_until > '" + committed
                        + "'::timestamptz") == 1 && count(db, "select count(*) from work_history_unfinished") == 0);
        double seconds = foldSeconds(replicas) - before;
        System.out.printf("[bench] history: %d tasks folded in %.3f s of the job's runs (the all-series counts %d "
                + "SUCCEEDED since their minute)%n", tasks, seconds, count(db, "select coalesce(sum(succeeded), 0) from "
                + "work_history where type = '*' and owner = '*' and bucket >= date_trunc('minute', '" + committed
                + "'::timestamptz)"));
        BenchResults.record("history.fold_ms_per_10k_tasks", seconds * 1000 * 10_000 / tasks);
    }

    private static long count(Connection db, String sql) throws SQLException {
        return Rows.count(db, sql);
    }
}

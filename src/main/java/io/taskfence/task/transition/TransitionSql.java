package io.taskfence.task.transition;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import io.taskfence.task.TaskStatus;

/** The SQL fragments the transitions share, written once, and the reading of what their statements return. */
final class TransitionSql {

    /** A task dispatch may take: waiting to run (PENDING, or FAILED and to be retried) and its {@code run_at} passed. */
    static final String DUE = "status in ('PENDING', 'FAILED') and run_at <= now()";

    /** A remote claim's time-out has not come ({@code timeout_at}; a replica's own claims have none). */
    static final String NOT_TIMED_OUT = "(tasks.timeout_at is null or tasks.timeout_at > now())";

    /**
     * The write comes from the task's current claim: still PROCESSING under that attempt and claim id, and not timed
     * out. Binds the task id, the attempt and the claim id ({@link #bindClaim}).
     */
    static final String CURRENT_CLAIM = "id = ? and status = 'PROCESSING' and attempt = ? and worker = ? and "
            + NOT_TIMED_OUT;

    /**
     * What an attempt that timed out failed with: {@code timed out after <n>s} (or {@code <n>ms}), as
     * {@link io.taskfence.task.TaskRows#durationText} writes the time-out.
     */
    static final String TIMED_OUT = "'timed out after ' || case when timeout_ms % 1000 = 0 then (timeout_ms / 1000) "
            + "|| 's' else timeout_ms || 'ms' end";

    /** Full-jitter exponential backoff for the attempt just made: random() * min(cap, base * 2^(attempt-1)); binds cap, base. */
    static final String BACKOFF = "now() + random() * least(?::bigint, ?::bigint * power(2, least(attempt - 1, 40)))"
            + " * interval '1 millisecond'";

    /** A failed attempt ends the task when it was the last one, or when the deadline has passed. */
    static final String EXHAUSTED = "(attempt >= max_attempts or (deadline is not null and deadline <= now()))";

    private TransitionSql() {
    }

    static void bindClaim(PreparedStatement statement, int first, Claim claim) throws SQLException {
        statement.setObject(first, claim.taskId());
        statement.setInt(first + 1, claim.attempt());
        statement.setString(first + 2, claim.claimId());
    }

    /** The rows a batch statement ({@code ... returning status, type}) moved. */
    static List<TransitionMeters.Moved> movedRows(PreparedStatement statement) throws SQLException {
        List<TransitionMeters.Moved> moved = new ArrayList<>();
        try (ResultSet row = statement.executeQuery()) {
            while (row.next()) {
                moved.add(new TransitionMeters.Moved(TaskStatus.valueOf(row.getString(1)), row.getString(2)));
            }
        }
        return moved;
    }
}

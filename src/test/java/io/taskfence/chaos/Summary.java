package io.taskfence.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a chaos run's invariant checker found, read from the table, the history and the dispatch log after
 * the faults stopped and every task drained. The run fails on any lost task, stale-token write, illegal
 * transition, attempt end written by a superseded claim, or task stored after its client was told nothing was
 * changed, and on any follow-up lost or done twice ({@link FollowUpCounts}).
 *
 * @param submitted tasks a client was given an id for (201, or 200 for a repeated idempotency key)
 * @param refused submissions refused, by HTTP status (a 503 while PostgreSQL was away is not a submission)
 * @param unanswered requests whose answer a fault swallowed; all were sent again with their keys
 * @param unansweredKeyless submissions without an idempotency key whose answer was lost (not sent again)
 * @param storedUnanswered of those, the ones whose task was stored all the same
 * @param duplicated tasks beyond the first that one submission without an idempotency key made
 * @param storedAfterMaybe tasks stored although their submission was refused, with an answer that said the change
 *     may or may not have been made (its commit's connection broke)
 * @param storedAfterNothingChanged tasks stored although their submission was refused with any other answer (a
 *     503 that says nothing was changed, a 4xx): each of those promises that nothing was stored
 * @param scheduleTasks tasks the run's schedule made
 * @param finished submitted tasks that ended SUCCEEDED, DEAD or CANCELLED
 * @param lost submitted tasks missing from the table or not finished once everything drained
 * @param unfinishedOthers other tasks (the schedule's) not finished
 * @param staleTokenWrites dispatch batches committed with a token older than one already committed, or by a
 *     run after another run had written
 * @param illegalTransitions events that are no edge of the state machine, or break a task's chain
 * @param supersededClaimWrites ends of an attempt written by a claim id other than the attempt's
 * @param rerunsAfterLeaseExpiry attempts started after the previous attempt's lease expired (recovery): the
 *     only way one task may run on two workers at once, so each is an explained overlap
 * @param rerunsAfterCancel attempts started after a running attempt was cancelled (its claim voided) and the
 *     task retried
 * @param p99WaitBeyondRunAt of the times from a task falling due (created, its runAt, or a manual retry) to its
 *     start, the 99th percentile
 * @param followUps the dependents released or cancelled, then tasks, callback tasks and follow-ups left
 */
record Summary(long seed, Duration run, List<InjectedFault> faults, long submitted, Map<Integer, Long> refused,
        long unanswered, long unansweredKeyless, long storedUnanswered, long duplicated, long storedAfterMaybe,
        long storedAfterNothingChanged, long scheduleTasks, long finished, Map<String, Long> endStates,
        long lost, List<String> lostExamples, long unfinishedOthers, long cancels, long retries,
        long dispatchBatches, long dispatchRuns, long staleTokenWrites, long illegalTransitions,
        List<String> illegalExamples, long supersededClaimWrites, long rerunsAfterLeaseExpiry,
        long rerunsAfterCancel, Duration p99WaitBeyondRunAt, Duration maxWaitBeyondRunAt, String maxWaitTask,
        Duration drain, FollowUpCounts followUps) {

    boolean passed() {
        return lost == 0 && unfinishedOthers == 0 && staleTokenWrites == 0 && illegalTransitions == 0
                && supersededClaimWrites == 0 && storedAfterNothingChanged == 0 && followUps.passed();
    }

    /** The summary as a Markdown table, then the faults. */
    String table() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("chaos run: %d min, seed %d (replay with -Dchaos.seed=%d), %d faults%n%n",
                run.toMinutes(), seed, seed, faults.size()));
        out.append("| measure | value |\n|---|---|\n");
        row(out, "tasks submitted (accepted with an id)", submitted);
        row(out, "submissions refused, by status", refused.isEmpty() ? "none" : refused.toString());
        row(out, "answers lost in a fault, sent again with their idempotency keys", unanswered);
        row(out, "answers lost without an idempotency key (not sent again) / their tasks stored anyway",
                unansweredKeyless + " / " + storedUnanswered);
        row(out, "stored although refused: answered \"may or may not have been made\" / answered \"nothing was "
                + "changed\" (must be 0)", storedAfterMaybe + " / " + storedAfterNothingChanged);
        row(out, "extra tasks made by one submission without an idempotency key", duplicated);
        row(out, "tasks made by the schedule", scheduleTasks);
        row(out, "tasks finished", finished + " " + endStates);
        row(out, "**tasks lost** (must be 0)", lost + (lostExamples.isEmpty() ? "" : " e.g. " + lostExamples));
        row(out, "schedule tasks unfinished (must be 0)", unfinishedOthers);
        row(out, "cancels / retries that took effect", cancels + " / " + retries);
        row(out, "dispatch batches / runs (token changes)", dispatchBatches + " / " + dispatchRuns);
        row(out, "**stale-token writes committed** (must be 0)", staleTokenWrites);
        row(out, "**transitions that are not edges** (must be 0)", illegalTransitions
                + (illegalExamples.isEmpty() ? "" : " e.g. " + illegalExamples));
        row(out, "attempt ends written by a superseded claim (must be 0)", supersededClaimWrites);
        row(out, "overlapping attempts: reruns after a lease expired (allowed, counted)", rerunsAfterLeaseExpiry);
        row(out, "reruns after a running attempt was cancelled and retried", rerunsAfterCancel);
        row(out, "wait beyond runAt (or a retry) to the start, p99 / max", String.format("%.1f s / %.1f s (task %s)",
                p99WaitBeyondRunAt.toMillis() / 1000.0, maxWaitBeyondRunAt.toMillis() / 1000.0, maxWaitTask));
        followUps.rows((measure, value) -> row(out, measure, value));
        row(out, "drain after the load stopped", String.format("%.1f s", drain.toMillis() / 1000.0));
        out.append("\nfaults:\n");
        faults.forEach(fault -> out.append("  ").append(fault).append('\n'));
        out.append(passed() ? "PASSED\n" : "FAILED\n");
        return out.toString();
    }

    private static void row(StringBuilder out, String measure, Object value) {
        out.append("| ").append(measure).append(" | ").append(value).append(" |\n");
    }
}

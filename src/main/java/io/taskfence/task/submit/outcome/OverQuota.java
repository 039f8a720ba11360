package io.taskfence.task.submit.outcome;

/**
 * A task not stored, or not retried, because its owner would have more unfinished tasks than its quota allows;
 * the other tasks of the same owner in the same insert were refused with it (DESIGN.md, "Configuration", "Quotas").
 *
 * @param unfinished the owner's unfinished tasks, counted up to {@code limit} (the count stops there)
 * @param adding how many tasks the refused request would have added
 * @param retry whether the request was a retry, else a submission
 */
public record OverQuota(String owner, long unfinished, int limit, int adding, boolean retry) implements Submitted {

    public String detail() {
        String has = unfinished >= limit ? "has reached its quota of " + limit + " unfinished tasks"
                : "has " + unfinished + " unfinished tasks and may have at most " + limit;
        String refused = retry ? "retrying this task would exceed it, so it was not retried"
                : "the " + adding + " submitted would exceed it, so none was stored";
        return "API key '" + owner + "' " + has + "; " + refused + ". Try again once some have finished";
    }
}

package io.taskfence.task.submit;

/**
 * A task not stored because its owner would have more unfinished tasks than its quota allows; the other
 * tasks of the same owner in the same insert were refused with it (DESIGN.md, "Configuration", "Quotas").
 */
public record OverQuota(String owner, long unfinished, int limit, int submitted) implements Submitted {

    public String detail() {
        return "API key '" + owner + "' has " + unfinished + " unfinished tasks and may have at most " + limit
                + "; the " + submitted + " submitted would exceed that, so none was stored. Try again once some have finished";
    }
}

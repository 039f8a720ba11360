package io.taskfence.task.submit.outcome;

/**
 * A submission of a type declared through the API that was taken back ({@code DELETE /types/{type}}) before the
 * submission could be stored: no worker would run it. Nothing was stored.
 */
public record TypeTakenBack(String type) implements Submitted {

    public String detail() {
        return "task type '" + type + "' was taken back (DELETE /api/v1/types/" + type + ") while this task was "
                + "submitted: nothing runs it any more; declare it again to submit it";
    }
}

package io.taskfence.history;

/** What one series did in one bucket of time, while it is added up: counts, and the wait and run times. */
final class Tally {

    int started;
    int succeeded;
    int failed;
    int dead;
    int cancelled;
    final DurationHistogram waits;
    final DurationHistogram runs;

    Tally() {
        this(new DurationHistogram(), new DurationHistogram());
    }

    Tally(DurationHistogram waits, DurationHistogram runs) {
        this.waits = waits;
        this.runs = runs;
    }

    void addAll(Tally other) {
        started += other.started;
        succeeded += other.succeeded;
        failed += other.failed;
        dead += other.dead;
        cancelled += other.cancelled;
        waits.addAll(other.waits);
        runs.addAll(other.runs);
    }

    /** An end: SUCCEEDED, DEAD or CANCELLED. */
    void ended(String status) {
        switch (status) {
            case "SUCCEEDED" -> succeeded++;
            case "DEAD" -> dead++;
            case "CANCELLED" -> cancelled++;
            default -> throw new IllegalArgumentException("not an end: " + status);
        }
    }
}

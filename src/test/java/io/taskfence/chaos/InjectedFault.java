package io.taskfence.chaos;

import java.time.Duration;

/**
 * One fault of a run: when it began (since the load started), what it was, on which target, and how long
 * until it was healed (the system back in the state the next fault may start from).
 */
record InjectedFault(Duration at, FaultKind kind, String target, Duration healedAfter) {

    @Override
    public String toString() {
        return String.format("%5.1fs  %-40s  %-40s  healed after %.1fs", at.toMillis() / 1000.0, kind.description(),
                target, healedAfter.toMillis() / 1000.0);
    }
}

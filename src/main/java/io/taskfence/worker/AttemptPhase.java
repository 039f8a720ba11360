package io.taskfence.worker;

/**
 * Where an {@link Attempt} is. WAITING → RUNNING → FINISHED → RECORDING is the way of an outcome that gets written;
 * any of the first three may end in LOST or HANDED_BACK instead, which write nothing more (the first end wins). A
 * RECORDING attempt can still be marked LOST (a heartbeat in flight was refused) or HANDED_BACK (shutdown): its
 * outcome is being written regardless; only a hand-back reads it, and skips a LOST attempt.
 */
enum AttemptPhase {
    /** Claimed, the lease held, waiting for a worker thread. */
    WAITING,
    /** The handler runs on the attempt's runner thread. */
    RUNNING,
    /** The handler returned; whether its outcome is this attempt's to write is not decided yet. */
    FINISHED,
    /** The outcome is being written; the lease ends with it, so no heartbeat and no expiry any more. */
    RECORDING,
    /** The lease was lost: a heartbeat was refused, or the lease ran out here. */
    LOST,
    /** Handed back at shutdown. */
    HANDED_BACK;

    boolean holdsLease() {
        return this == WAITING || this == RUNNING || this == FINISHED;
    }

    boolean ended() {
        return this == LOST || this == HANDED_BACK;
    }
}

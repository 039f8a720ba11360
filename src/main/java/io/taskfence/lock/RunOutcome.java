package io.taskfence.lock;

/** How a {@link FencedLocks#runExclusively} call ended. */
public enum RunOutcome {
    /** The job ran to its end while the lease stayed held. */
    COMPLETED,
    /** Another holder had the lock; the job did not run (it is skipped, not queued). */
    SKIPPED,
    /** The lock was lost while the job ran; the job was interrupted and its lease is invalid. */
    LEASE_LOST
}

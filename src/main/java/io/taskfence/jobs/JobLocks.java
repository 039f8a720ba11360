package io.taskfence.jobs;

import io.taskfence.queue.TaskQueue;

/**
 * The names of the leader-only jobs' locks, each also the name of its fence row in PostgreSQL and of its metrics'
 * {@code lock} tag. Renaming one splits its fencing history: a new name starts from token 1 in Redis and no fence.
 */
final class JobLocks {

    /** The queue's stream is keyed by it and pushes check it, so the queue owns the name. */
    static final String DISPATCH = TaskQueue.DISPATCH_LOCK;
    static final String RECOVERY = "recovery";
    static final String RETENTION = "retention";
    static final String SCHEDULES = "schedules";
    static final String BATCHES = "batches";
    static final String ACTIONS = "actions";
    static final String FOLLOW_UPS = "follow-ups";
    static final String HISTORY = "history";

    private JobLocks() {
    }
}

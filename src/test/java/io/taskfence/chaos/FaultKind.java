package io.taskfence.chaos;

/** The faults a chaos run injects, one at a time, each healed before the next. */
enum FaultKind {
    /** A replica is killed (SIGKILL) and started again with the same id a few seconds later. */
    REPLICA_KILL("replica killed (kill -9), restarted"),
    /** A replica, the dispatch lock's holder if there is one, is stopped (SIGSTOP) past both leases, then woken. */
    REPLICA_PAUSE("replica paused (SIGSTOP) past its leases"),
    /** The Redis primary is killed or paused until the sentinels promote its replica; it then rejoins as a replica. */
    REDIS_FAILOVER("Redis Sentinel failover"),
    /** Redis loses every key (FLUSHDB of the run's own Redis): locks, token counters, the stream. */
    REDIS_FLUSH("Redis flushed"),
    /** The replicas' connections to PostgreSQL drop and new ones are refused for seconds, as in a restart. */
    POSTGRES_RESTART("PostgreSQL restart (connections cut)"),
    /** The replicas' path to PostgreSQL delivers nothing for seconds: statements hang, then their connections drop. */
    POSTGRES_STALL("PostgreSQL connection stalled");

    private final String description;

    FaultKind(String description) {
        this.description = description;
    }

    String description() {
        return description;
    }
}

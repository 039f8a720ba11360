package io.taskfence.lock;

/** Work that runs while holding a fenced lock; it passes the lease's token on with every write. */
@FunctionalInterface
public interface FencedJob {

    void run(FencedLease lease) throws Exception;
}

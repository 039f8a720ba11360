package io.taskfence.jobs;

import io.taskfence.lock.FencedLease;
import io.taskfence.store.FenceToken;

/** One run of a leader-only job: {@code held} says whether it still leads; every write it makes carries {@code fence}. */
@FunctionalInterface
interface LeaderJob {

    void run(FencedLease held, FenceToken fence) throws Exception;
}

package io.taskfence;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The service's own settings, {@code taskfence.*} (DESIGN section 7). Each key also reads from its
 * environment variable, e.g. {@code TASKFENCE_LOCK_LEASE}.
 */
@ConfigMapping(prefix = "taskfence")
public interface TaskfenceConfig {

    /** This replica's name in logs, stats and lock owners; the pod or host name when unset. */
    Optional<String> replicaId();

    /**
     * First segment of every Redis key and channel this service uses. Replicas of one deployment
     * share it; separate deployments (or test runs) on one Redis use different ones.
     */
    @WithDefault("taskfence")
    String keyPrefix();

    Lock lock();

    interface Lock {
        /** Lease of the job locks; the watchdog renews it at a third of this while the job runs. */
        @WithDefault("30s")
        Duration lease();
    }
}

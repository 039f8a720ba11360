package io.taskfence;

import java.time.Duration;
import java.util.List;
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

    Retry retry();

    Auth auth();

    interface Lock {
        /** Lease of the job locks; the watchdog renews it at a third of this while the job runs. */
        @WithDefault("30s")
        Duration lease();
    }

    interface Retry {
        /** Attempts of a task that names none. */
        @WithDefault("5")
        int maxAttempts();

        /** Backoff after the first failed attempt; it doubles each attempt, with full jitter. */
        @WithDefault("1s")
        Duration backoffBase();

        /** The longest backoff. */
        @WithDefault("10m")
        Duration backoffCap();
    }

    interface Auth {
        /** When false every request may do everything: for a trusted network or local trials only. */
        @WithDefault("true")
        boolean enabled();

        /** API keys that may submit and read tasks. */
        Optional<List<String>> submitKeys();

        /** API keys that may also cancel, retry and read stats. */
        Optional<List<String>> adminKeys();
    }
}

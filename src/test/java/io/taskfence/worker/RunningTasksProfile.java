package io.taskfence.worker;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** Dispatch, recovery and workers switched on, with short leases and time-outs so that tests are quick. */
public final class RunningTasksProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "taskfence.dispatch.enabled", "true",
                "taskfence.worker.enabled", "true",
                "taskfence.lock.lease", "3s",
                "taskfence.worker.lease", "3s",
                "taskfence.recovery.interval", "1s",
                "taskfence.recovery.enqueued-timeout", "4s",
                "taskfence.retry.backoff-base", "100ms",
                "taskfence.retry.backoff-cap", "1s");
    }
}

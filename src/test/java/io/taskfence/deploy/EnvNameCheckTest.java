package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.taskfence.TaskfenceConfig;

/** The check that the manifests' environment variables name real settings must itself catch typos. */
class EnvNameCheckTest {

    private final KnownEnvNames known = KnownEnvNames.ofMapping(TaskfenceConfig.class)
            .and(KnownEnvNames.QUARKUS_KEYS_WE_USE);

    @Test
    void derivesTheTaskfenceNamesFromTheMappingInterface() {
        for (String name : List.of("TASKFENCE_REPLICA_ID", "TASKFENCE_KEY_PREFIX", "TASKFENCE_LOCK_LEASE",
                "TASKFENCE_DISPATCH_BATCH_SIZE", "TASKFENCE_WORKER_CONCURRENCY", "TASKFENCE_WORKER_DRAIN_TIMEOUT",
                "TASKFENCE_RECOVERY_ENQUEUED_TIMEOUT", "TASKFENCE_RETRY_BACKOFF_CAP", "TASKFENCE_HTTP_ALLOWED_HOSTS",
                "TASKFENCE_AUTH_ADMIN_KEYS")) {
            assertTrue(known.accepts(name), name);
        }
    }

    @Test
    void refusesMisspeltAndMadeUpNames() {
        List<String> manifest = List.of("TASKFENCE_WORKER_CONCURRENCY", "TASKFENCE_WORKER_CONCURENCY",
                "TASKFENCE_WORKER", "TASKFENCE_DISPATCH_BATCHSIZE", "TASKFENCE_LOCK_LEASE_TIME", "QUARKUS_REDIS_HOST",
                "QUARKUS_LOG_LEVEL", "REDIS_URL");

        assertEquals(List.of("TASKFENCE_WORKER_CONCURENCY", "TASKFENCE_WORKER", "TASKFENCE_DISPATCH_BATCHSIZE",
                "TASKFENCE_LOCK_LEASE_TIME", "QUARKUS_REDIS_HOST", "REDIS_URL"), known.unknownAmong(manifest));
    }

    @Test
    void namesKeysTheWaySmallRyeConfigDoes() {
        assertEquals("drain-timeout", KnownEnvNames.kebab("drainTimeout"));
        assertEquals("TASKFENCE_WORKER_DRAIN_TIMEOUT", KnownEnvNames.envName("taskfence.worker.drain-timeout"));
        assertFalse(known.accepts("taskfence.worker.drain-timeout"), "only the environment form is a variable name");
    }
}

package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The checks that catch typos in k8s/ must themselves catch typos (and nothing else). */
class TypoChecksTest {

    @Test
    void acceptsTheNamesTheContainerReads() {
        for (String name : List.of("TASKFENCE_REPLICA_ID", "TASKFENCE_KEY_PREFIX", "TASKFENCE_LOCK_LEASE",
                "TASKFENCE_DISPATCH_BATCH_SIZE", "TASKFENCE_WORKER_CONCURRENCY", "TASKFENCE_WORKER_DRAIN_TIMEOUT",
                "TASKFENCE_RECOVERY_ENQUEUED_TIMEOUT", "TASKFENCE_RETRY_BACKOFF_CAP", "TASKFENCE_HTTP_ALLOWED_HOSTS",
                "TASKFENCE_AUTH_KEYS_OPS_SECRET", "TASKFENCE_AUTH_KEYS_CLIENT1_MAX_UNFINISHED", "TASKFENCE_TYPES_HTTP_RATE",
                "TASKFENCE_TYPES_SLEEP_MAX_CONCURRENCY", "QUARKUS_LOG_LEVEL", "JAVA_OPTS_APPEND",
                "QUARKUS_REDIS_CLIENT_TYPE", "QUARKUS_REDIS_MASTER_NAME", "QUARKUS_REDIS_ROLE", "QUARKUS_REDIS_AUTO_FAILOVER")) {
            assertTrue(KnownEnvNames.accepts(name), name);
        }
        assertFalse(KnownEnvNames.accepts("taskfence.worker.drain-timeout"), "only the environment form is a variable name");
    }

    @Test
    void refusesMisspeltAndMadeUpEnvironmentVariables() {
        List<String> manifest = List.of("TASKFENCE_WORKER_CONCURRENCY", "TASKFENCE_WORKER_CONCURENCY",
                "TASKFENCE_WORKER", "TASKFENCE_DISPATCH_BATCHSIZE", "TASKFENCE_LOCK_LEASE_TIME", "QUARKUS_REDIS_HOST",
                "QUARKUS_LOG_LEVEL", "REDIS_URL", "TASKFENCE_AUTH_ADMIN_KEYS", "TASKFENCE_AUTH_KEYS_OPS_SECRT",
                "TASKFENCE_TYPES_HTTP_RATES", "TASKFENCE_TYPE_HTTP_RATE");

        assertEquals(List.of("TASKFENCE_WORKER_CONCURENCY", "TASKFENCE_WORKER", "TASKFENCE_DISPATCH_BATCHSIZE",
                "TASKFENCE_LOCK_LEASE_TIME", "QUARKUS_REDIS_HOST", "REDIS_URL", "TASKFENCE_AUTH_ADMIN_KEYS", "TASKFENCE_AUTH_KEYS_OPS_SECRT",
                "TASKFENCE_TYPES_HTTP_RATES", "TASKFENCE_TYPE_HTTP_RATE"),
                KnownEnvNames.unknownAmong(manifest));
    }

    @Test
    void refusesAFieldTheKubernetesApiDoesNotKnow() {
        String deployment = """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: taskfence}
                spec:
                  template:
                    spec:
                      containers:
                        - name: taskfence
                          readinesProbe: {httpGet: {path: /q/health/ready, port: http}}
                """;
        AssertionError refused = assertThrows(AssertionError.class, () -> Rendering.parse(deployment));
        assertEquals("Deployment taskfence: spec.template.spec.containers[0].readinesProbe is a field the Kubernetes API does not know;"
                + " the API server would refuse it", refused.getMessage());
        Rendering.parse(deployment.replace("readinesProbe", "readinessProbe"));
    }
}

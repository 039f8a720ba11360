package io.taskfence.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.taskfence.TaskfenceConfig;

/** Named keys as an operator writes them in the environment (k8s/secrets.env). */
class KeyConfigurationTest {

    @Test
    void namedKeysReadFromTheEnvironment() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(TaskfenceConfig.class)
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new EnvConfigSource(Map.of(
                        "TASKFENCE_AUTH_KEYS_CI_SECRET", "s1",
                        "TASKFENCE_AUTH_KEYS_OPS_SECRET", "s2",
                        "TASKFENCE_AUTH_KEYS_OPS_ROLE", "admin",
                        "TASKFENCE_AUTH_KEYS_BILLING2_MAX_UNFINISHED", "7",
                        "TASKFENCE_AUTH_KEYS_BILLING2_SECRET", "s3"), 300) {
                })
                .build();
        TaskfenceConfig.Auth auth = config.getConfigMapping(TaskfenceConfig.class).auth();
        assertEquals(java.util.Set.of("ci", "ops", "billing2"), auth.keys().keySet());
        assertEquals("admin", auth.keys().get("ops").role());
        assertEquals("submit", auth.keys().get("ci").role());
        assertEquals(7, auth.keys().get("billing2").maxUnfinished().getAsInt());
    }
}

package io.taskfence.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.taskfence.TaskfenceConfig;
import io.taskfence.api.auth.KeyRules;

/** Named keys as an operator writes them in the environment (k8s/secrets.env), and the start-up refusals (KeyRules). */
class KeyConfigurationTest {

    private static final String GOOD = "9b1f4e7a2c6d08e35f1a9c7b4e2d6f80";

    @Test
    void namedKeysReadFromTheEnvironment() {
        TaskfenceConfig.Auth auth = auth(Map.of(
                "TASKFENCE_AUTH_KEYS_CI_SECRET", "s1",
                "TASKFENCE_AUTH_KEYS_OPS_SECRET", "s2",
                "TASKFENCE_AUTH_KEYS_OPS_ROLE", "admin",
                "TASKFENCE_AUTH_KEYS_BILLING2_MAX_UNFINISHED", "7",
                "TASKFENCE_AUTH_KEYS_BILLING2_SECRET", "s3"));
        assertEquals(java.util.Set.of("ci", "ops", "billing2"), auth.keys().keySet());
        assertEquals("admin", auth.keys().get("ops").role());
        assertEquals("submit", auth.keys().get("ci").role());
        assertEquals(7, auth.keys().get("billing2").maxUnfinished().getAsInt());
        assertEquals(List.of(), KeyRules.refusals(auth, Set.of(), false), "short keys are fine outside prod");
    }

    @Test
    void theProdProfileRefusesShortAndPlaceholderKeysNamingTheKeyNotTheSecret() {
        TaskfenceConfig.Auth auth = auth(Map.of(
                "TASKFENCE_AUTH_KEYS_OPS_SECRET", "change-me-admin-key-change-me-admin-key",
                "TASKFENCE_AUTH_KEYS_CI_SECRET", "short1",
                "TASKFENCE_AUTH_KEYS_SAME_SECRET", "a".repeat(40),
                "TASKFENCE_AUTH_KEYS_GOOD_SECRET", GOOD,
                "TASKFENCE_AUTH_KEYS_EMPTY_SECRET", ""));
        List<String> refused = KeyRules.refusals(auth, Set.of(), true);
        assertEquals(4, refused.size(), refused.toString());
        String all = String.join("\n", refused);
        assertTrue(all.contains("API key 'ops' looks like a placeholder"), all);
        assertTrue(all.contains("API key 'ci' is shorter than 32 characters"), all);
        assertTrue(all.contains("API key 'same' looks like a placeholder"), all);
        assertTrue(all.contains("API key 'empty' has no secret"), all);
        assertFalse(all.contains("change-me-admin") || all.contains("short1") || all.contains(GOOD), "a secret was printed");
    }

    @Test
    void weightsPriorityCapsAndRatesOutOfRangeAreRefusedNamingTheKey() {
        TaskfenceConfig.Auth auth = auth(Map.of(
                "TASKFENCE_AUTH_KEYS_BIG_SECRET", "s1",
                "TASKFENCE_AUTH_KEYS_BIG_WEIGHT", "3",
                "TASKFENCE_AUTH_KEYS_BIG_MAX_PRIORITY", "10",
                "TASKFENCE_AUTH_KEYS_ZERO_SECRET", "s2",
                "TASKFENCE_AUTH_KEYS_ZERO_WEIGHT", "0",
                "TASKFENCE_AUTH_KEYS_HIGH_SECRET", "s3",
                "TASKFENCE_AUTH_KEYS_HIGH_MAX_PRIORITY", "1001",
                "TASKFENCE_AUTH_KEYS_HIGH_RATE", "fast",
                "TASKFENCE_AUTH_KEYS_BIG_RATE", "20/s"));
        assertEquals(3, auth.keys().get("big").weight());
        assertEquals(10, auth.keys().get("big").maxPriority().getAsInt());
        assertEquals(1, auth.keys().get("high").weight(), "the default weight");
        assertEquals("20/s", auth.keys().get("big").rate().orElseThrow());
        assertEquals(List.of("API key 'high': max-priority must be 0 to 1000, not 1001",
                "API key 'high': rate: 'fast' is not a rate: write <n>/s or <n>/m with n from 1, e.g. 10/s or 600/m",
                "API key 'zero': weight must be 1 to 100, not 0"), KeyRules.refusals(auth, Set.of(), false).stream().sorted().toList());
    }

    @Test
    void aWorkerKeyNamesRemoteTypesOnlyAndOnlyAWorkerKeyNamesTypes() {
        TaskfenceConfig.Auth auth = auth(Map.of(
                "TASKFENCE_AUTH_KEYS_PYWORKER_SECRET", "s1",
                "TASKFENCE_AUTH_KEYS_PYWORKER_ROLE", "worker",
                "TASKFENCE_AUTH_KEYS_PYWORKER_TYPES", "resize,noop",
                "TASKFENCE_AUTH_KEYS_IDLE_SECRET", "s2",
                "TASKFENCE_AUTH_KEYS_IDLE_ROLE", "worker",
                "TASKFENCE_AUTH_KEYS_TENANT_SECRET", "s3",
                "TASKFENCE_AUTH_KEYS_TENANT_TYPES", "resize"));
        assertEquals(List.of("API key 'tenant' names types, which only a worker key does (role=worker)",
                "worker key 'idle' names no types (taskfence.auth.keys.idle.types): it could claim nothing",
                "worker key 'pyworker' names 'noop', which is not a remote type (the remote types are [resize]; "
                        + "taskfence.types.<type>.remote=true)"),
                KeyRules.refusals(auth, Set.of("resize"), false).stream().sorted().toList());
    }

    @Test
    void aWorkerKeyMayNameEveryRemoteTypeWithAStarAlone() {
        TaskfenceConfig.Auth auth = auth(Map.of(
                "TASKFENCE_AUTH_KEYS_ANY_SECRET", "s1",
                "TASKFENCE_AUTH_KEYS_ANY_ROLE", "worker",
                "TASKFENCE_AUTH_KEYS_ANY_TYPES", "*",
                "TASKFENCE_AUTH_KEYS_MIXED_SECRET", "s2",
                "TASKFENCE_AUTH_KEYS_MIXED_ROLE", "worker",
                "TASKFENCE_AUTH_KEYS_MIXED_TYPES", "*,resize"));
        assertEquals(List.of("worker key 'mixed' names '*' (every remote type) and more types: name either"),
                KeyRules.refusals(auth, Set.of("resize"), false));
    }

    @Test
    void aCallbackSecretIsStandardWebhooksLongEnoughInProdAndEachKeysOwnNamingTheKeyNotTheSecret() {
        String strong = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        TaskfenceConfig.Auth auth = auth(Map.of(
                "TASKFENCE_AUTH_KEYS_GOOD_SECRET", GOOD,
                "TASKFENCE_AUTH_KEYS_GOOD_CALLBACK_SECRET", strong,
                "TASKFENCE_AUTH_KEYS_TWIN_SECRET", GOOD.replace('9', '8'),
                "TASKFENCE_AUTH_KEYS_TWIN_CALLBACK_SECRET", strong,
                "TASKFENCE_AUTH_KEYS_SHORT_SECRET", GOOD.replace('9', '7'),
                "TASKFENCE_AUTH_KEYS_SHORT_CALLBACK_SECRET", "whsec_c2hvcnQ=",
                "TASKFENCE_AUTH_KEYS_PLAIN_SECRET", GOOD.replace('9', '6'),
                "TASKFENCE_AUTH_KEYS_PLAIN_CALLBACK_SECRET", "hunter2hunter2",
                "TASKFENCE_AUTH_KEYS_NONE_SECRET", GOOD.replace('9', '5')));
        assertEquals(strong, auth.keys().get("good").callbackSecret().orElseThrow());
        assertTrue(auth.keys().get("none").callbackSecret().isEmpty(), "optional: derived from the key's secret");
        List<String> refused = KeyRules.refusals(auth, Set.of(), true).stream().sorted().toList();
        assertEquals(3, refused.size(), refused.toString());
        assertTrue(refused.get(0).startsWith("API key 'plain': callback-secret must begin with whsec_"), refused.get(0));
        assertTrue(refused.get(1).startsWith("API key 'short': callback-secret holds 5 bytes of key; the prod profile "
                + "needs at least 24"), refused.get(1));
        assertTrue(refused.get(2).startsWith("API keys 'good' and 'twin' have the same callback-secret"), refused.get(2));
        assertFalse(String.join("\n", refused).contains("hunter2") || String.join("\n", refused).contains("c2hvcnQ")
                || String.join("\n", refused).contains("MfKQ9r8"), "a secret was printed");
        assertEquals(2, KeyRules.refusals(auth, Set.of(), false).size(), "outside prod a short one is fine");
    }

    @Test
    void authOffIsRefusedInProdUnlessAllowedExplicitly() {
        assertEquals(1, KeyRules.refusals(auth(Map.of("TASKFENCE_AUTH_ENABLED", "false")), Set.of(), true).size());
        assertEquals(List.of(), KeyRules.refusals(auth(Map.of("TASKFENCE_AUTH_ENABLED", "false",
                "TASKFENCE_AUTH_ALLOW_DISABLED_IN_PROD", "true")), Set.of(), true));
        assertEquals(List.of(), KeyRules.refusals(auth(Map.of("TASKFENCE_AUTH_ENABLED", "false")), Set.of(), false));
    }

    private static TaskfenceConfig.Auth auth(Map<String, String> environment) {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(TaskfenceConfig.class)
                .withConverter(java.time.Duration.class, 100, new io.quarkus.runtime.configuration.DurationConverter())
                .withSources(new EnvConfigSource(environment, 300) {
                })
                .build();
        return config.getConfigMapping(TaskfenceConfig.class).auth();
    }
}

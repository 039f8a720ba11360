package io.taskfence.testing;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/** API keys of the two roles, configured for the test run. */
public final class ApiKeysForTests implements QuarkusTestResourceLifecycleManager {

    public static final String SUBMIT_KEY = "test-submit-key";
    public static final String ADMIN_KEY = "test-admin-key";

    @Override
    public Map<String, String> start() {
        return Map.of("taskfence.auth.enabled", "true",
                "taskfence.auth.submit-keys", SUBMIT_KEY + ",second-submit-key",
                "taskfence.auth.admin-keys", ADMIN_KEY);
    }

    @Override
    public void stop() {
    }
}

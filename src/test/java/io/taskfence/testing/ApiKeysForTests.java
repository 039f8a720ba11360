package io.taskfence.testing;

import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Named API keys, configured for the test run: two submit keys (two tenants), an admin key, and a submit key
 * with a quota of {@link #QUOTA_LIMIT} unfinished tasks that only the quota tests use. The secrets are long and
 * random-looking because the packaged service runs the prod profile, which refuses anything else.
 */
public final class ApiKeysForTests implements QuarkusTestResourceLifecycleManager {

    public static final String SUBMIT_KEY = "tf-sub-7c1e94b2d83f5a06e9c4b17d2f8a305e";
    public static final String SUBMIT_KEY_NAME = "submitter";
    public static final String OTHER_SUBMIT_KEY = "tf-sub-2b94e0c7a5d13f86b7e24c9a0d6f1e53";
    public static final String OTHER_SUBMIT_KEY_NAME = "othertenant";
    public static final String ADMIN_KEY = "tf-adm-5e0a7d3c91b46f28d5c83e1a7b9f2046";
    public static final String ADMIN_KEY_NAME = "operator";
    public static final String QUOTA_KEY = "tf-quo-8d26f1a4c07b93e5a1f68d2c4e0b7935";
    public static final String QUOTA_KEY_NAME = "quotatenant";
    public static final int QUOTA_LIMIT = 3;

    @Override
    public Map<String, String> start() {
        return Map.of("taskfence.auth.enabled", "true",
                "taskfence.auth.keys." + SUBMIT_KEY_NAME + ".secret", SUBMIT_KEY,
                "taskfence.auth.keys." + OTHER_SUBMIT_KEY_NAME + ".secret", OTHER_SUBMIT_KEY,
                "taskfence.auth.keys." + ADMIN_KEY_NAME + ".secret", ADMIN_KEY,
                "taskfence.auth.keys." + ADMIN_KEY_NAME + ".role", "admin",
                "taskfence.auth.keys." + QUOTA_KEY_NAME + ".secret", QUOTA_KEY,
                "taskfence.auth.keys." + QUOTA_KEY_NAME + ".max-unfinished", String.valueOf(QUOTA_LIMIT));
    }

    @Override
    public void stop() {
    }
}

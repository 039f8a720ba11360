package io.taskfence.testing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Named API keys, configured for the test run: two submit keys (two tenants), an admin key, a submit key
 * with a quota of {@link #QUOTA_LIMIT} unfinished tasks that only the quota tests use, and two worker keys with
 * the remote types they claim. The secrets are long and
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
    /** A submit key whose tasks only the fairness tests make: a flood they delete afterwards. */
    public static final String FLOOD_KEY = "tf-flo-4a7c0e93d1b586f2c9e03a7d5b1f8e64";
    public static final String FLOOD_KEY_NAME = "flooder";
    /** A submit key with three shares of each dispatch batch and priorities capped at {@link #WEIGHTED_MAX_PRIORITY}. */
    public static final String WEIGHTED_KEY = "tf-wei-93e1b7d04f2a6c85e7d19b3f0a4c6e28";
    public static final String WEIGHTED_KEY_NAME = "weighted";
    public static final int WEIGHT = 3;
    public static final int WEIGHTED_MAX_PRIORITY = 10;
    /** Two submit keys with a request rate of {@link #RATE}, one for single requests, one for batches. */
    public static final String RATED_KEY = "tf-rat-0d6b8e2f4a1c937e5b0d2f8a6c4e1b73";
    public static final String RATED_KEY_NAME = "rated";
    public static final String RATED_BATCH_KEY = "tf-rbt-7e2a4c9f1b03d68e2c5a7f1d9b3e0c46";
    public static final String RATED_BATCH_KEY_NAME = "ratedbatch";
    public static final String RATE = "5/m";
    /** An admin key whose tasks, its schedules' included, may ask for a priority of {@link #CAPPED_MAX_PRIORITY} at most. */
    public static final String CAPPED_ADMIN_KEY = "tf-cap-5b8e1d3f7a09c4e62d8b1f5a3c7e9d04";
    public static final String CAPPED_ADMIN_KEY_NAME = "cappedadmin";
    public static final int CAPPED_MAX_PRIORITY = 5;
    /** Task types run by remote workers, configured with the keys: a worker key must name remote types. */
    public static final List<String> REMOTE_TYPES = List.of("resize", "thumbnail", "transcode", "ocr", "archive");
    /** What a {@code resize} task's payload must be: its {@code image} a string, when given. */
    public static final String RESIZE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"image\":{\"type\":\"string\"}}}";
    /** A worker key that may claim every remote type. */
    public static final String WORKER_KEY = "tf-wrk-3f9a1c7e5d20b84f6a3e9c1d7b5f2a08";
    public static final String WORKER_KEY_NAME = "remoteworker";
    /** A worker key that may claim {@code thumbnail} tasks only. */
    public static final String THUMBNAIL_WORKER_KEY = "tf-wth-8c2e6a0f4b17d93c5e8a2f6d0b4c7e91";
    public static final String THUMBNAIL_WORKER_KEY_NAME = "thumbnailer";
    /** A worker key whose types are {@code *}: every remote type, also those declared through the API. */
    public static final String ANY_WORKER_KEY = "tf-wan-6d1f9b3e7c25a08f4d6b2e9c1a7f3d58";
    public static final String ANY_WORKER_KEY_NAME = "anyworker";

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = new HashMap<>();
        settings.put("taskfence.auth.enabled", "true");
        settings.put("taskfence.auth.keys." + SUBMIT_KEY_NAME + ".secret", SUBMIT_KEY);
        settings.put("taskfence.auth.keys." + OTHER_SUBMIT_KEY_NAME + ".secret", OTHER_SUBMIT_KEY);
        settings.put("taskfence.auth.keys." + ADMIN_KEY_NAME + ".secret", ADMIN_KEY);
        settings.put("taskfence.auth.keys." + ADMIN_KEY_NAME + ".role", "admin");
        settings.put("taskfence.auth.keys." + QUOTA_KEY_NAME + ".secret", QUOTA_KEY);
        settings.put("taskfence.auth.keys." + QUOTA_KEY_NAME + ".max-unfinished", String.valueOf(QUOTA_LIMIT));
        settings.put("taskfence.auth.keys." + FLOOD_KEY_NAME + ".secret", FLOOD_KEY);
        settings.put("taskfence.auth.keys." + WEIGHTED_KEY_NAME + ".secret", WEIGHTED_KEY);
        settings.put("taskfence.auth.keys." + WEIGHTED_KEY_NAME + ".weight", String.valueOf(WEIGHT));
        settings.put("taskfence.auth.keys." + WEIGHTED_KEY_NAME + ".max-priority", String.valueOf(WEIGHTED_MAX_PRIORITY));
        settings.put("taskfence.auth.keys." + RATED_KEY_NAME + ".secret", RATED_KEY);
        settings.put("taskfence.auth.keys." + RATED_KEY_NAME + ".rate", RATE);
        settings.put("taskfence.auth.keys." + RATED_BATCH_KEY_NAME + ".secret", RATED_BATCH_KEY);
        settings.put("taskfence.auth.keys." + RATED_BATCH_KEY_NAME + ".rate", RATE);
        settings.put("taskfence.auth.keys." + CAPPED_ADMIN_KEY_NAME + ".secret", CAPPED_ADMIN_KEY);
        settings.put("taskfence.auth.keys." + CAPPED_ADMIN_KEY_NAME + ".role", "admin");
        settings.put("taskfence.auth.keys." + CAPPED_ADMIN_KEY_NAME + ".max-priority", String.valueOf(CAPPED_MAX_PRIORITY));
        REMOTE_TYPES.forEach(type -> settings.put("taskfence.types." + type + ".remote", "true"));
        settings.put("taskfence.types.resize.schema", RESIZE_SCHEMA);
        settings.put("taskfence.auth.keys." + WORKER_KEY_NAME + ".secret", WORKER_KEY);
        settings.put("taskfence.auth.keys." + WORKER_KEY_NAME + ".role", "worker");
        settings.put("taskfence.auth.keys." + WORKER_KEY_NAME + ".types", String.join(",", REMOTE_TYPES));
        settings.put("taskfence.auth.keys." + THUMBNAIL_WORKER_KEY_NAME + ".secret", THUMBNAIL_WORKER_KEY);
        settings.put("taskfence.auth.keys." + THUMBNAIL_WORKER_KEY_NAME + ".role", "worker");
        settings.put("taskfence.auth.keys." + THUMBNAIL_WORKER_KEY_NAME + ".types", "thumbnail");
        settings.put("taskfence.auth.keys." + ANY_WORKER_KEY_NAME + ".secret", ANY_WORKER_KEY);
        settings.put("taskfence.auth.keys." + ANY_WORKER_KEY_NAME + ".role", "worker");
        settings.put("taskfence.auth.keys." + ANY_WORKER_KEY_NAME + ".types", "*");
        return settings;
    }

    @Override
    public void stop() {
    }
}

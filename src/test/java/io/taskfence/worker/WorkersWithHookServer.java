package io.taskfence.worker;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.taskfence.handlers.builtin.LargeResultHandler;
import io.taskfence.handlers.builtin.LocalHookServer;
import io.taskfence.testing.ApiKeysForTests;

/**
 * Dispatch and workers running ({@link RunningTasksProfile}), traced, with {@link GuardedRunHandler} registered and
 * the {@code http} and {@code callback} handlers calling the {@link LocalHookServer}, and {@link LargeResultHandler}:
 * one application for the tests of cancels, tracing and callbacks. The http time-out is far longer than any test waits, so that a call ends by
 * its answer or a cancel, never by its time-out.
 */
public final class WorkersWithHookServer implements QuarkusTestProfile {

    /** {@link ApiKeysForTests#OTHER_SUBMIT_KEY_NAME}'s {@code callback-secret}. */
    public static final String OTHER_CALLBACK_SECRET = "whsec_q8L2m0Zk3N5rT7vX9bD1fH3jK5nP7rS9uW1yA3cE5gI=";

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
        config.put(GuardedRunHandler.ENABLED, "true");
        config.put("quarkus.otel.sdk.disabled", "false");
        config.put("quarkus.otel.bsp.schedule.delay", "50ms");
        config.put("taskfence.http.allowed-hosts", "http://127.0.0.1:${" + LocalHookServer.PORT + "}");
        config.put("taskfence.http.timeout", "5m");
        config.put(LargeResultHandler.ENABLED, "true");
        // One tenant signs its callbacks with a secret of its own; the others with the one derived from their key.
        config.put("taskfence.auth.keys." + ApiKeysForTests.OTHER_SUBMIT_KEY_NAME + ".callback-secret", OTHER_CALLBACK_SECRET);
        return config;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(LocalHookServer.class));
    }
}

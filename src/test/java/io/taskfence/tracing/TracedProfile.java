package io.taskfence.tracing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.taskfence.handlers.builtin.LocalHookServer;
import io.taskfence.worker.RunningTasksProfile;

/**
 * Tasks run here and by remote workers, traced, the {@code http} and {@code callback} handlers calling the
 * {@link LocalHookServer}: TracingTest's, and CallbacksTest's (one application for both).
 */
public final class TracedProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
        config.put("quarkus.otel.sdk.disabled", "false");
        config.put("quarkus.otel.bsp.schedule.delay", "50ms");
        config.put("taskfence.http.allowed-hosts", "http://127.0.0.1:${" + LocalHookServer.PORT + "}");
        return config;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(LocalHookServer.class));
    }
}

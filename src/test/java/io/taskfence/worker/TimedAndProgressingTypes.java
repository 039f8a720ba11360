package io.taskfence.worker;

import java.util.HashMap;
import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * {@link RunningTasksProfile} with types of their own for what an attempt does while it runs: {@code sleep} and the
 * remote type {@code encode} time out after a second ({@link AttemptTimeoutTest}); the {@code progressing} handler and
 * the remote type {@code render} report progress ({@link TaskProgressTest}). One application for both: each test
 * class uses only its own types, and a profile less is one application less to build and start.
 */
public final class TimedAndProgressingTypes implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> settings = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
        settings.put("taskfence.types.sleep.timeout", "1s");
        settings.put("taskfence.types.encode.remote", "true");
        settings.put("taskfence.types.encode.timeout", "1s");
        settings.put(ProgressingHandler.ENABLED, "true");
        settings.put("taskfence.types.render.remote", "true");
        return settings;
    }
}

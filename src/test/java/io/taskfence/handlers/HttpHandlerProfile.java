package io.taskfence.handlers;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** The {@code http} handler may call 127.0.0.1 only, with a short time-out so that the slow cases are quick. */
public final class HttpHandlerProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "taskfence.http.allowed-hosts", "127.0.0.1",
                "taskfence.http.timeout", "1s");
    }
}

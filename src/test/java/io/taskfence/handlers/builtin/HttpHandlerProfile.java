package io.taskfence.handlers.builtin;

import java.util.List;
import java.util.Map;
import java.util.Set;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The {@code http} handler may call the {@link LocalHookServer} and a closed port on 127.0.0.1 (loopback, so
 * only because the entries name that address), names {@link ScriptedHostResolver} resolves, and a few more
 * for {@code PayloadProblemsTest}; with a short time-out so that the slow cases are quick.
 */
public final class HttpHandlerProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "taskfence.http.allowed-hosts", String.join(",", List.of(
                        "http://127.0.0.1:${" + LocalHookServer.PORT + "}",
                        "http://127.0.0.1:${" + LocalHookServer.CLOSED_PORT + "}",
                        "http://127.0.0.1:9",
                        "HTTPS://127.0.0.1",
                        "http://10.1.2.3",
                        // On the hook server's port: a call the resolver's answer did not stop would reach it.
                        "http://" + ScriptedHostResolver.REBOUND + ":${" + LocalHookServer.PORT + "}",
                        "https://" + ScriptedHostResolver.METADATA + ":8443",
                        "http://" + ScriptedHostResolver.PARTLY_PRIVATE,
                        "http://" + ScriptedHostResolver.MAPPED,
                        "http://" + ScriptedHostResolver.PUBLIC,
                        "http://nowhere.test")),
                "taskfence.http.timeout", HttpHandlerTest.TIMEOUT.toMillis() + "ms",
                // One tenant whose tasks may call one of those destinations only.
                "taskfence.auth.keys." + HttpHandlerTest.NARROW_KEY + ".allowed-hosts", "http://10.1.2.3");
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(LocalHookServer.class));
    }

    @Override
    public Set<Class<?>> getEnabledAlternatives() {
        return Set.of(ScriptedHostResolver.class);
    }
}

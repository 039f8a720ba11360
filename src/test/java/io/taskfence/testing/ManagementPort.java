package io.taskfence.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * For {@code @QuarkusIntegrationTest}: the packaged service's management interface on a free port of this run
 * (the launcher chooses only the API's port), and its root, {@code http://localhost:PORT/}, injected into the
 * test's {@code URI management} field.
 */
public final class ManagementPort implements QuarkusTestResourceLifecycleManager {

    private int port;

    @Override
    public Map<String, String> start() {
        try {
            port = PackagedService.freePort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("quarkus.management.port", Integer.toString(port));
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(URI.create("http://localhost:" + port + "/"),
                field -> field.getType() == URI.class && field.getName().equals("management"));
    }

    @Override
    public void stop() {
    }
}

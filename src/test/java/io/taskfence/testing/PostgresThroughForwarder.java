package io.taskfence.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Puts a {@link TcpForwarder} between the service and PostgreSQL, so that a test can make PostgreSQL
 * unreachable for the service ({@link TcpForwarder#stall()}) while the test itself still reaches it directly
 * ({@link PostgresSchema#DATABASE_URL}). The test gets the forwarder in its field of that type. Use it on one
 * test class ({@code scope = RESTRICTED_TO_CLASS}) next to {@link TestServers}: it keeps the run's schema.
 */
public final class PostgresThroughForwarder implements QuarkusTestResourceLifecycleManager {

    private TcpForwarder forwarder;

    @Override
    public Map<String, String> start() {
        URI database = URI.create(PostgresSchema.DATABASE_URL.substring("jdbc:".length()));
        try {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            forwarder = TcpForwarder.open(port, database.getPort());
            // The profile's key wins over PostgresSchema's plain one; the schema is the one it made for this run.
            return Map.of("%test.quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + port
                    + database.getPath() + "?currentSchema=${quarkus.flyway.schemas}");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(forwarder, new TestInjector.MatchesType(TcpForwarder.class));
    }

    @Override
    public void stop() {
        if (forwarder != null) {
            forwarder.close();
        }
    }
}

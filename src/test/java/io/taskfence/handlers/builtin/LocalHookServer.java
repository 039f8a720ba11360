package io.taskfence.handlers.builtin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A local HTTP server for the {@code http} handler to call, bound before the application starts so that the
 * allow-list can name its address and port ({@value #PORT}); a test adds its routes. It also finds a loopback
 * port where nothing listens ({@value #CLOSED_PORT}). Both reach the test as fields of their type: an
 * {@link HttpServer} and an {@link InetSocketAddress}.
 */
public final class LocalHookServer implements QuarkusTestResourceLifecycleManager {

    /** Config keys carrying the two ports; both are on 127.0.0.1. */
    public static final String PORT = "test.hook-server.port";
    static final String CLOSED_PORT = "test.hook-server.closed-port";

    private ExecutorService threads;
    private HttpServer server;
    private InetSocketAddress closed;

    @Override
    public Map<String, String> start() {
        try {
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            threads = Executors.newCachedThreadPool();
            server = HttpServer.create(new InetSocketAddress(loopback, 0), 0);
            server.setExecutor(threads);
            server.start();
            try (ServerSocket probe = new ServerSocket(0, 1, loopback)) {
                closed = new InetSocketAddress(loopback, probe.getLocalPort());
            }
            return Map.of(PORT, Integer.toString(server.getAddress().getPort()),
                    CLOSED_PORT, Integer.toString(closed.getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(server, new TestInjector.MatchesType(HttpServer.class));
        injector.injectIntoFields(closed, new TestInjector.MatchesType(InetSocketAddress.class));
    }

    @Override
    public void stop() {
        server.stop(0);
        threads.shutdownNow();
    }
}

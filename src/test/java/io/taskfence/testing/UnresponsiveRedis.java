package io.taskfence.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Two Redis clients that cannot work: {@code silent} connects to a socket that accepts and never
 * answers (a hung or partitioned server), {@code refused} to a port where nothing listens.
 */
public final class UnresponsiveRedis implements QuarkusTestResourceLifecycleManager {

    public static final String SILENT = "silent";
    public static final String REFUSED = "refused";
    /** The Redis client timeout of both: an operation must fail after about this long, not hang. */
    public static final String TIMEOUT = "1s";

    private ServerSocket silent;

    @Override
    public Map<String, String> start() {
        try {
            // Never accepted: the kernel completes the handshake from the backlog, then nothing is read.
            silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            int refusedPort;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                refusedPort = probe.getLocalPort();
            }
            return Map.of(
                    "quarkus.redis." + SILENT + ".hosts", "redis://127.0.0.1:" + silent.getLocalPort(),
                    "quarkus.redis." + SILENT + ".timeout", TIMEOUT,
                    "quarkus.redis." + REFUSED + ".hosts", "redis://127.0.0.1:" + refusedPort,
                    "quarkus.redis." + REFUSED + ".timeout", TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        try {
            silent.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

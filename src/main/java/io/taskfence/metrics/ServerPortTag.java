package io.taskfence.metrics;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Drops the {@code server.port} tag from the HTTP servers' meters. Quarkus tags a server's meters with its
 * port only when that port is fixed (above 0); with the API and the management interface on two servers, one
 * on a fixed port and one on a random port (as the packaged-application test starts it), the two would register
 * {@code http_server_bytes_read} with different tag keys, which the Prometheus registry refuses, and the server
 * would not start. Requests keep their {@code uri} tags; the bytes read and written are summed over both ports.
 */
@Singleton
final class ServerPortTag {

    @Produces
    @Singleton
    MeterFilter dropped() {
        return MeterFilter.ignoreTags("server.port");
    }
}

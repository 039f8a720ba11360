package io.taskfence.handlers.builtin;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

/** The JVM's name service: /etc/hosts and DNS, with the JVM's cache ({@code networkaddress.cache.ttl}). */
@ApplicationScoped
class SystemHostResolver implements HostResolver {

    @Override
    public List<InetAddress> addressesOf(String host) throws UnknownHostException {
        return List.of(InetAddress.getAllByName(host));
    }
}

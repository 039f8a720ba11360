package io.taskfence.handlers.builtin;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Looks up the addresses of a host name for the {@code http} handler, which checks every one before it calls
 * the first. A bean, so that tests can say what a name resolves to.
 */
public interface HostResolver {

    /**
     * Every address {@code host} resolves to, in the order to try them; never empty.
     *
     * @throws UnknownHostException when it resolves to none
     */
    List<InetAddress> addressesOf(String host) throws UnknownHostException;
}

package io.taskfence.handlers.builtin;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;

/**
 * Names that resolve as a test needs, in place of DNS (enabled by {@link HttpHandlerProfile}); any other name
 * is unknown. Each answer is the name's addresses in order, as DNS would give them.
 */
@Alternative
@ApplicationScoped
public class ScriptedHostResolver implements HostResolver {

    /** Resolves to loopback, as a hostile DNS server would answer for a name on the allow-list. */
    static final String REBOUND = "rebound.test";
    /** Resolves to the cloud metadata service's address. */
    static final String METADATA = "metadata.test";
    /** Resolves to a public address first and a private one after it. */
    static final String PARTLY_PRIVATE = "partly-private.test";
    /** Resolves to the metadata service's address in IPv4-mapped IPv6 form. */
    static final String MAPPED = "mapped.test";
    /** Resolves to a public address (TEST-NET-1, which no one answers on) that DNS does not know the name for. */
    static final String PUBLIC = "public.test";
    static final String PUBLIC_ADDRESS = "192.0.2.1";

    private static final Map<String, List<byte[]>> ANSWERS = Map.of(
            REBOUND, List.of(new byte[] { 127, 0, 0, 1 }),
            METADATA, List.of(new byte[] { (byte) 169, (byte) 254, (byte) 169, (byte) 254 }),
            PARTLY_PRIVATE, List.of(new byte[] { (byte) 192, 0, 2, 7 }, new byte[] { 10, 0, 0, 7 }),
            MAPPED, List.of(new byte[] { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff,
                    (byte) 169, (byte) 254, (byte) 169, (byte) 254 }),
            PUBLIC, List.of(new byte[] { (byte) 192, 0, 2, 1 }));

    @Override
    public List<InetAddress> addressesOf(String host) throws UnknownHostException {
        List<byte[]> answer = ANSWERS.get(host);
        if (answer == null) {
            throw new UnknownHostException(host + ": not a name this test resolves");
        }
        List<InetAddress> addresses = new ArrayList<>();
        for (byte[] address : answer) {
            // Inet6Address keeps a mapped address in its IPv6 form, as a resolver's raw answer may.
            addresses.add(address.length == 16 ? Inet6Address.getByAddress(host, address, -1)
                    : InetAddress.getByAddress(host, address));
        }
        return addresses;
    }
}

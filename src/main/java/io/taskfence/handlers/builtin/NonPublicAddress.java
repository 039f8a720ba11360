package io.taskfence.handlers.builtin;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.Optional;

/**
 * The kinds of address the {@code http} handler does not call unless the allow-list names the address itself:
 * those that reach this host, its network or the cloud's metadata service rather than the internet.
 */
enum NonPublicAddress {
    UNSPECIFIED("an unspecified address (0.0.0.0/8, ::)"),
    LOOPBACK("a loopback address"),
    LINK_LOCAL("a link-local address (169.254.0.0/16, fe80::/10, where cloud metadata services live)"),
    PRIVATE("a private address (10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10)"),
    SHARED("a shared address (100.64.0.0/10, carrier-grade NAT and some cloud metadata services)"),
    MULTICAST("a multicast address"),
    RESERVED("a reserved, benchmarking or broadcast address (240.0.0.0/4, 192.0.0.0/24, 198.18.0.0/15)"),
    TRANSLATED("an address of a local NAT64 translator or a Teredo tunnel (64:ff9b:1::/48, 2001::/32), which "
            + "may lead to any IPv4 address");

    private final String description;

    NonPublicAddress(String description) {
        this.description = description;
    }

    /** Reads as the end of "resolves to ...". */
    String description() {
        return description;
    }

    /** The kind of {@code address}, or empty when it is public; IPv6 forms that carry an IPv4 address count as it. */
    static Optional<NonPublicAddress> of(InetAddress address) {
        byte[] bytes = address.getAddress();
        return Optional.ofNullable(bytes.length == 4 ? ofIpv4(bytes) : ofIpv6(bytes));
    }

    private static NonPublicAddress ofIpv4(byte[] address) {
        int a = address[0] & 0xff;
        int b = address[1] & 0xff;
        if (a == 0) {
            return UNSPECIFIED; // "this network": Linux connects 0.0.0.0 to this host
        }
        if (a == 127) {
            return LOOPBACK;
        }
        if (a == 169 && b == 254) {
            return LINK_LOCAL;
        }
        if (a == 10 || a == 172 && (b & 0xf0) == 16 || a == 192 && b == 168) {
            return PRIVATE;
        }
        if (a == 100 && (b & 0xc0) == 64) {
            return SHARED;
        }
        if (a >= 224 && a < 240) {
            return MULTICAST;
        }
        if (a >= 240 || a == 192 && b == 0 && (address[2] & 0xff) == 0 || a == 198 && (b & 0xfe) == 18) {
            return RESERVED;
        }
        return null;
    }

    private static NonPublicAddress ofIpv6(byte[] address) {
        byte[] first12 = Arrays.copyOf(address, 12);
        byte[] last4 = Arrays.copyOfRange(address, 12, 16);
        if (Arrays.equals(first12, new byte[12])) {
            // ::, ::1, or an IPv4-compatible ::a.b.c.d
            if (Arrays.equals(last4, new byte[4])) {
                return UNSPECIFIED;
            }
            if (Arrays.equals(last4, new byte[] { 0, 0, 0, 1 })) {
                return LOOPBACK;
            }
            return ofIpv4(last4);
        }
        if (Arrays.equals(first12, new byte[] { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff })
                || Arrays.equals(first12, new byte[] { 0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 0, 0, 0, 0, 0, 0, 0 })) {
            return ofIpv4(last4); // IPv4-mapped ::ffff:a.b.c.d, or NAT64's 64:ff9b::a.b.c.d
        }
        int first = address[0] & 0xff;
        int second = address[1] & 0xff;
        if (first == 0x20 && second == 0x02) {
            return ofIpv4(Arrays.copyOfRange(address, 2, 6)); // 6to4, 2002:a.b.c.d::/48: a relay forwards to a.b.c.d
        }
        if (Arrays.equals(Arrays.copyOf(address, 6), new byte[] { 0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 1 })
                || Arrays.equals(Arrays.copyOf(address, 4), new byte[] { 0x20, 0x01, 0, 0 })) {
            // Local-use NAT64 (RFC 8215) embeds its IPv4 address where its operator chose; Teredo's client
            // address is obfuscated and its relay decides: neither says where the call ends up.
            return TRANSLATED;
        }
        if (first == 0xfe && (second & 0xc0) == 0x80) {
            return LINK_LOCAL;
        }
        if (first == 0xfe && (second & 0xc0) == 0xc0 || (first & 0xfe) == 0xfc) {
            return PRIVATE; // fec0::/10 (the old site-local) and fc00::/7 (unique local)
        }
        if (first == 0xff) {
            return MULTICAST;
        }
        return null;
    }
}

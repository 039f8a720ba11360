package io.taskfence.handlers.builtin;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where an {@code http} task's call goes: scheme, host and port, the unit {@link AllowedDestinations} is made of.
 * The host is normalised so that equal destinations compare equal: names in lower case, an IPv6 address in its
 * full form without brackets.
 */
record Destination(String scheme, String host, int port) {

    /** An IPv4 address as d.d.d.d with no leading zeros; other forms (127.1, 0x7f.1) are not taken as literals. */
    private static final Pattern IPV4 = Pattern
            .compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern DIGITS_AND_DOTS = Pattern.compile("[0-9.]+");

    /**
     * The destination of an absolute http or https URI; a URI without a port goes to its scheme's default port.
     *
     * @throws IllegalArgumentException when the host is an IP address written in a form that is not d.d.d.d
     *         or a valid IPv6 address without a zone
     */
    static Destination of(URI uri) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        return new Destination(scheme, normalisedHost(uri.getHost()), uri.getPort() == -1 ? defaultPort(scheme) : uri.getPort());
    }

    static int defaultPort(String scheme) {
        return scheme.equals("https") ? 443 : 80;
    }

    boolean isHttps() {
        return scheme.equals("https");
    }

    /** The host when it is an IP address literal; no name is ever looked up here. */
    Optional<InetAddress> literalAddress() {
        if (!IPV4.matcher(host).matches() && !host.contains(":")) {
            return Optional.empty();
        }
        try {
            // A d.d.d.d or a bracketed text is parsed, never looked up.
            return Optional.of(InetAddress.getByName(host.contains(":") ? "[" + host + "]" : host));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("normalised host " + host + " is not an address", e);
        }
    }

    /** What the {@code Host} header carries: the host, and the port unless it is the scheme's default. */
    String authority() {
        return bracketed() + (port == defaultPort(scheme) ? "" : ":" + port);
    }

    @Override
    public String toString() {
        return scheme + "://" + bracketed() + ":" + port;
    }

    private String bracketed() {
        return host.contains(":") ? "[" + host + "]" : host;
    }

    private static String normalisedHost(String host) {
        String lower = host.strip().toLowerCase(Locale.ROOT);
        if (lower.startsWith("[") && lower.endsWith("]")) {
            String address = lower.substring(1, lower.length() - 1);
            if (address.contains("%")) {
                throw new IllegalArgumentException("an IPv6 address with a zone (" + address + ") cannot be called");
            }
            try {
                return InetAddress.getByName(lower).getHostAddress(); // bracketed: parsed, never looked up
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(host + " is not an IPv6 address");
            }
        }
        if (DIGITS_AND_DOTS.matcher(lower).matches() && !IPV4.matcher(lower).matches()) {
            // A resolver may read 127.1 or 0177.0.0.1 as an address; ask for the one spelling that is unambiguous.
            throw new IllegalArgumentException(host + " is not an IPv4 address written as d.d.d.d");
        }
        return lower;
    }
}

package io.taskfence.handlers.builtin;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code taskfence.http.allowed-hosts}: the destinations the {@code http} handler may call, each
 * {@code scheme://host[:port]} and matched exactly on all three, an entry without a port meaning its scheme's
 * default one. An entry whose host is an IP address literal also allows that address when it is loopback,
 * private or otherwise not public (see {@link NonPublicAddress}); a name never does.
 */
final class AllowedDestinations {

    static final String KEY = "taskfence.http.allowed-hosts (TASKFENCE_HTTP_ALLOWED_HOSTS)";

    private final Set<Destination> destinations;

    private AllowedDestinations(Set<Destination> destinations) {
        this.destinations = Set.copyOf(destinations);
    }

    /**
     * Reads the configured entries.
     *
     * @throws IllegalArgumentException naming the first entry that is not {@code http(s)://host[:port]}
     */
    static AllowedDestinations of(List<String> entries) {
        return of(KEY, entries);
    }

    /** {@link #of(List)} for the entries of {@code setting}, which a malformed entry's message names. */
    static AllowedDestinations of(String setting, List<String> entries) {
        Set<Destination> destinations = new LinkedHashSet<>();
        for (String entry : entries) {
            destinations.add(destination(setting, entry));
        }
        return new AllowedDestinations(destinations);
    }

    /** Whether {@code url}'s destination is an entry (not counting what an entry's address allows). */
    boolean lists(Destination url) {
        return destinations.contains(url);
    }

    /** Every entry, as written back: {@code scheme://host:port}. */
    Set<Destination> entries() {
        return destinations;
    }

    /**
     * Why {@code url}'s destination may not be called, in a sentence that names no other entry; empty when
     * it may. It looks nothing up: where a name resolves to is checked when the task runs.
     */
    Optional<String> whyNot(Destination url) {
        if (destinations.contains(url)) {
            return Optional.empty();
        }
        if (destinations.stream().anyMatch(allowed -> allowed.host().equals(url.host()))) {
            return Optional.of("payload.url's destination " + url + " is not allowed: " + KEY + " lists host '"
                    + url.host() + "', but not with scheme " + url.scheme() + " and port " + url.port());
        }
        Optional<NonPublicAddress> nonPublic = url.literalAddress().flatMap(NonPublicAddress::of);
        if (nonPublic.isPresent()) {
            return Optional.of("payload.url's host '" + url.host() + "' is not allowed: it is "
                    + nonPublic.get().description() + ", which is called only when " + KEY
                    + " lists that address itself");
        }
        return Optional.of("payload.url's host '" + url.host() + "' is not allowed: add " + url + " to " + KEY);
    }

    private static Destination destination(String setting, String entry) {
        URI uri;
        try {
            uri = new URI(entry.strip());
        } catch (URISyntaxException e) {
            throw malformed(setting, entry, "it is not a URL (" + e.getMessage() + ")");
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme == null || !uri.isAbsolute() || uri.isOpaque()) {
            throw malformed(setting, entry, "it has no scheme");
        }
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw malformed(setting, entry, "its scheme is " + scheme + ", not http or https");
        }
        if (uri.getHost() == null) {
            throw malformed(setting, entry, "it has no host name or address (no wildcards)");
        }
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                || !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/")) {
            throw malformed(setting, entry, "it has more than a scheme, host and port");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65535) {
            throw malformed(setting, entry, "its port is not from 1 to 65535");
        }
        try {
            return Destination.of(uri);
        } catch (IllegalArgumentException e) {
            throw malformed(setting, entry, e.getMessage());
        }
    }

    private static IllegalArgumentException malformed(String setting, String entry, String why) {
        return new IllegalArgumentException(setting + " entry '" + entry + "' is not scheme://host[:port]: " + why
                + "; write e.g. https://api.example.com or http://10.0.0.5:8080");
    }
}

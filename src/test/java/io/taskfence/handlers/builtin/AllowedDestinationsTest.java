package io.taskfence.handlers.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How {@code taskfence.http.allowed-hosts} is read and matched (no server involved: the handler's calls are in
 * {@link HttpHandlerTest}).
 */
class AllowedDestinationsTest {

    private final AllowedDestinations allowed = AllowedDestinations.of(List.of(
            "https://API.example.com", " http://hooks.example.com:8080/ ", "http://10.0.0.5:8080", "http://[FD00::1]"));

    @ParameterizedTest
    @ValueSource(strings = { "https://api.example.com/v1?x=1", "https://api.example.com:443/", "HTTPS://Api.Example.Com",
            "http://hooks.example.com:8080/hook", "http://10.0.0.5:8080/", "http://[fd00:0:0:0:0:0:0:1]:80/" })
    void aUrlWhoseSchemeHostAndPortMatchAnEntryIsAllowed(String url) {
        assertEquals(Optional.empty(), allowed.whyNot(Destination.of(URI.create(url))));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http://api.example.com/ | lists host 'api.example.com', but not with scheme http and port 80",
            "https://api.example.com:8443/ | lists host 'api.example.com', but not with scheme https and port 8443",
            "https://hooks.example.com:8080/ | lists host 'hooks.example.com', but not with scheme https and port 8080",
            "http://example.com/ | host 'example.com' is not allowed: add http://example.com:80 to",
            "http://api.example.com.evil.test/ | host 'api.example.com.evil.test' is not allowed",
            "http://10.0.0.6:8080/ | host '10.0.0.6' is not allowed: it is a private address" })
    void anyOtherUrlIsRefusedWithAReasonThatNamesNoOtherEntry(String url, String reason) {
        String why = allowed.whyNot(Destination.of(URI.create(url))).orElseThrow();
        assertTrue(why.contains(reason), why);
        for (String entry : List.of("10.0.0.5", "fd00", "hooks", "api")) {
            assertFalse(!url.contains(entry) && why.contains(entry), "names another entry: " + why);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "hooks.example.com | it has no scheme",
            "hooks.example.com:443 | it has no scheme",
            "ftp://files.example.com | its scheme is ftp",
            "https://*.example.com | it has no host",
            "https:// | it is not a URL",
            "https://api.example.com/v1 | more than a scheme, host and port",
            "https://user@api.example.com | more than a scheme, host and port",
            "https://api.example.com?x | more than a scheme, host and port",
            "http://api.example.com:0 | its port is not from 1 to 65535",
            "http://api.example.com:65536 | its port is not from 1 to 65535",
            "http://127.1 | it has no host",
            "http://0177.0.0.1 | not an IPv4 address written as d.d.d.d",
            "http://2130706433 | not an IPv4 address written as d.d.d.d",
            "http://[fe80::1%25eth0] | zone" })
    void aMalformedEntryIsRefusedByName(String entry, String reason) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> AllowedDestinations.of(List.of("https://fine.example.com", entry)));
        assertTrue(refused.getMessage().startsWith("taskfence.http.allowed-hosts (TASKFENCE_HTTP_ALLOWED_HOSTS) entry '"
                + entry + "' is not scheme://host[:port]: "), refused.getMessage());
        assertTrue(refused.getMessage().contains(reason), refused.getMessage());
    }

    @Test
    void anEntryWithoutAPortMeansItsSchemesDefaultPort() {
        AllowedDestinations both = AllowedDestinations.of(List.of("http://a.example.com", "https://b.example.com"));
        assertEquals(Optional.empty(), both.whyNot(new Destination("http", "a.example.com", 80)));
        assertEquals(Optional.empty(), both.whyNot(new Destination("https", "b.example.com", 443)));
        assertTrue(both.whyNot(new Destination("https", "a.example.com", 443)).isPresent());
        assertTrue(both.whyNot(new Destination("http", "b.example.com", 80)).isPresent());
    }
}

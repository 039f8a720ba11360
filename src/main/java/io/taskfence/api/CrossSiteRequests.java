package io.taskfence.api;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.Response.Status;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.taskfence.api.problem.Problem;

/**
 * Refuses a request that would change something when a browser sent it from another site: its {@code Origin} names
 * another host than the request's {@code Host}, or its {@code Sec-Fetch-Site} says {@code cross-site}. A page
 * elsewhere can make a browser POST a form, without a body the API reads and without a preflight, to
 * {@code /tasks/{id}/cancel}; with authentication off nothing else would stop it (DESIGN.md, "REST API",
 * "Cross-site requests"). Clients other than browsers send neither header; the dashboard, served by the API's
 * own host, sends its own origin. Only the host and port are compared: a proxy that ends TLS passes the browser's
 * Host on but calls over plain HTTP.
 */
final class CrossSiteRequests {

    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

    @ServerRequestFilter(preMatching = true)
    Optional<Response> refuseChangesFromOtherSites(ContainerRequestContext request) {
        if (SAFE.contains(request.getMethod())) {
            return Optional.empty();
        }
        String origin = request.getHeaderString("Origin");
        // The authority the request was sent to: its Host header, or HTTP/2's :authority.
        String host = request.getUriInfo().getRequestUri().getRawAuthority();
        if ("cross-site".equalsIgnoreCase(request.getHeaderString("Sec-Fetch-Site"))) {
            return Optional.of(refused("the browser says it was sent by another site (Sec-Fetch-Site: cross-site)"));
        }
        if (origin != null && !sameHost(origin, host)) {
            return Optional.of(refused("its Origin '" + origin + "' is not this service's (" + host + ")"));
        }
        return Optional.empty();
    }

    private static boolean sameHost(String origin, String host) {
        if (host == null) {
            return false;
        }
        try {
            URI uri = URI.create(origin.strip());
            String authority = uri.getRawAuthority();
            return uri.getScheme() != null && authority != null && uri.getRawPath().isEmpty()
                    && authority.toLowerCase(Locale.ROOT).equals(host.strip().toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException malformed) {
            return false; // not a URI at all ("null", a sandboxed page's or a file's, has no scheme: refused above)
        }
    }

    private static Response refused(String why) {
        return Problem.of(Status.FORBIDDEN, "a request that changes something may not come from another site: "
                + why + ". Call the API from a program, or from the dashboard this service serves").toResponse();
    }
}

package io.taskfence.api.auth;

import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.smallrye.mutiny.Uni;
import io.taskfence.TaskfenceConfig;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * Reads {@code Authorization: Bearer <api key>} and hands the key to {@link ApiKeys}. A request without
 * the header is anonymous: open endpoints (health, metrics, OpenAPI) serve it, the API answers 401.
 */
@ApplicationScoped
public class ApiKeyAuthentication implements HttpAuthenticationMechanism {

    private static final String BEARER = "Bearer ";
    private static final SecurityIdentity EVERYONE_IS_ADMIN = QuarkusSecurityIdentity.builder()
            .setPrincipal(new QuarkusPrincipal("anyone (taskfence.auth.enabled=false)"))
            .addRole(Roles.SUBMIT).addRole(Roles.ADMIN).addRole(Roles.WORKER).build();

    private final boolean enabled;

    ApiKeyAuthentication(TaskfenceConfig config) {
        this.enabled = config.auth().enabled();
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
        if (!enabled) {
            return Uni.createFrom().item(EVERYONE_IS_ADMIN);
        }
        String header = context.request().getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Uni.createFrom().optional(Optional.empty());
        }
        String key = header.substring(BEARER.length()).trim();
        return identities.authenticate(new TokenAuthenticationRequest(new TokenCredential(key, "bearer")));
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", "Bearer realm=\"taskfence\""));
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(TokenAuthenticationRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, "bearer"));
    }
}

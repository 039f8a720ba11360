package io.taskfence.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.runtime.Startup;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.taskfence.TaskfenceConfig;

/**
 * The configured API keys and their roles. Keys are compared by their SHA-256 digests with
 * {@link MessageDigest#isEqual}, against every configured key, so the time taken tells nothing about
 * how much of a key was right; keys are never logged, and the identity names only the role.
 */
@Startup // so that a missing key configuration is reported at start-up, not at the first request
@ApplicationScoped
public class ApiKeys implements IdentityProvider<TokenAuthenticationRequest> {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);

    private final List<byte[]> submitKeys;
    private final List<byte[]> adminKeys;

    ApiKeys(TaskfenceConfig config) {
        this.submitKeys = digests(config.auth().submitKeys().orElse(List.of()));
        this.adminKeys = digests(config.auth().adminKeys().orElse(List.of()));
        if (config.auth().enabled() && submitKeys.isEmpty() && adminKeys.isEmpty()) {
            LOG.warn("no API keys are configured (taskfence.auth.submit-keys, taskfence.auth.admin-keys): "
                    + "every API call will be refused with 401");
        }
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        byte[] presented = digest(request.getToken().getToken());
        boolean admin = matchesAny(presented, adminKeys);
        boolean submit = matchesAny(presented, submitKeys);
        if (admin) {
            return Uni.createFrom().item(identity("admin key", Roles.ADMIN, Roles.SUBMIT));
        }
        if (submit) {
            return Uni.createFrom().item(identity("submit key", Roles.SUBMIT));
        }
        return Uni.createFrom().failure(new AuthenticationFailedException("unknown API key"));
    }

    private static SecurityIdentity identity(String name, String... roles) {
        QuarkusSecurityIdentity.Builder identity = QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(name));
        for (String role : roles) {
            identity.addRole(role);
        }
        return identity.build();
    }

    /** Looks at every key whatever matched, so that timing does not tell which list a key is in. */
    private static boolean matchesAny(byte[] presented, List<byte[]> keys) {
        boolean match = false;
        for (byte[] key : keys) {
            match |= MessageDigest.isEqual(presented, key);
        }
        return match;
    }

    private static List<byte[]> digests(List<String> keys) {
        return keys.stream().map(String::trim).filter(key -> !key.isEmpty()).map(ApiKeys::digest).toList();
    }

    private static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }
}

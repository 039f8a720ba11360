package io.taskfence.api.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.runtime.Startup;
import io.quarkus.runtime.configuration.ConfigUtils;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.taskfence.TaskfenceConfig;
import io.taskfence.types.RemoteTypes;

/**
 * The configured API keys, by name ({@code taskfence.auth.keys.<name>}). Secrets are compared by their SHA-256
 * digests with {@link MessageDigest#isEqual}, against every configured key, so the time taken tells nothing
 * about how much of a key was right; secrets are never logged. The identity's principal is the key's name,
 * which {@link KeyOwner} makes the owner of the tasks it submits.
 */
@Startup // so that unusable keys stop the service at start-up, not at the first request
@ApplicationScoped
public class ApiKeys implements IdentityProvider<TokenAuthenticationRequest> {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);

    private record NamedKey(String name, String role, Set<String> workerTypes, byte[] digest) {
    }

    private final List<NamedKey> keys = new ArrayList<>();

    ApiKeys(TaskfenceConfig config, RemoteTypes remote) {
        TaskfenceConfig.Auth auth = config.auth();
        List<String> refusals = KeyRules.refusals(auth, remote.names(), ConfigUtils.isProfileActive("prod"));
        if (!refusals.isEmpty()) {
            throw new IllegalStateException("the API keys cannot be used: " + String.join("; ", refusals));
        }
        if (!auth.enabled()) {
            LOG.warn("AUTHENTICATION IS OFF (taskfence.auth.enabled=false): every caller may read, submit, cancel and "
                    + "retry every task without a key. Use this for local trials only.");
            return;
        }
        for (Map.Entry<String, TaskfenceConfig.Auth.Key> key : auth.keys().entrySet()) {
            keys.add(new NamedKey(key.getKey(), key.getValue().role(), Set.copyOf(key.getValue().types().orElse(List.of())),
                    digest(key.getValue().secret().orElseThrow().strip())));
        }
        for (int i = 0; i < keys.size(); i++) {
            for (int j = i + 1; j < keys.size(); j++) {
                if (MessageDigest.isEqual(keys.get(i).digest(), keys.get(j).digest())) {
                    throw new IllegalStateException("the API keys '" + keys.get(i).name() + "' and '" + keys.get(j).name()
                            + "' have the same secret; each key needs its own");
                }
            }
        }
        if (keys.isEmpty()) {
            LOG.warn("no API keys are configured (taskfence.auth.keys.<name>.secret): every API call will be refused with 401");
        }
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        byte[] presented = digest(request.getToken().getToken());
        NamedKey matched = null;
        for (NamedKey key : keys) { // every key, whatever matched, so that timing does not tell which one did
            if (MessageDigest.isEqual(presented, key.digest())) {
                matched = key;
            }
        }
        if (matched == null) {
            return Uni.createFrom().failure(new AuthenticationFailedException("unknown API key"));
        }
        QuarkusSecurityIdentity.Builder identity = QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(matched.name()))
                .addAttribute(KeyOwner.KEY_NAME, matched.name());
        if (Roles.WORKER.equals(matched.role())) {
            // A worker key claims and runs its types' tasks: it submits and reads none.
            identity.addRole(Roles.WORKER).addAttribute(KeyOwner.WORKER_TYPES, matched.workerTypes());
        } else {
            identity.addRole(Roles.SUBMIT);
            if (Roles.ADMIN.equals(matched.role())) {
                identity.addRole(Roles.ADMIN);
            }
        }
        return Uni.createFrom().item(identity.build());
    }

    private static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }
}

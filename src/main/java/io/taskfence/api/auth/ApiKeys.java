package io.taskfence.api.auth;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

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
import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySecret;
import io.taskfence.keys.KeySettings;
import io.taskfence.types.RemoteTypes;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Who an API key is: a configured one ({@code taskfence.auth.keys.<name>}), its secret's SHA-256 digest compared
 * with {@link MessageDigest#isEqual} against every configured key, so the time taken tells nothing about how much of
 * a key was right; else one made through the API, looked up by its digest in the {@link KeyDirectory}. Secrets are
 * never logged. The identity's principal is the key's name,
 * which {@link KeyOwner} makes the owner of the tasks it submits.
 */
@Startup // so that unusable keys stop the service at start-up, not at the first request
@ApplicationScoped
public class ApiKeys implements IdentityProvider<TokenAuthenticationRequest> {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);

    private record NamedKey(String name, String role, Set<String> workerTypes, byte[] digest) {
    }

    /** The longest a request whose secret is not in the copy waits for the table's read. */
    private static final Duration READ_WAIT = Duration.ofSeconds(10);

    private final List<NamedKey> keys = new ArrayList<>();
    private final KeyDirectory directory;

    ApiKeys(TaskfenceConfig config, RemoteTypes remote, KeyDirectory directory) {
        this.directory = directory;
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
                    KeySecret.digest(key.getValue().secret().orElseThrow().strip())));
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
            LOG.warn("no API keys are configured (taskfence.auth.keys.<name>.secret): only keys made through the API "
                    + "(by an admin key) can be used");
        }
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        byte[] presented = KeySecret.digest(request.getToken().getToken());
        NamedKey matched = null;
        for (NamedKey key : keys) { // every key, whatever matched, so that timing does not tell which one did
            if (MessageDigest.isEqual(presented, key.digest())) {
                matched = key;
            }
        }
        if (matched != null) {
            return Uni.createFrom().item(identity(matched.name(), matched.role(), matched.workerTypes()));
        }
        CompletableFuture<Optional<KeySettings>> stored = directory.storedBySecret(presented);
        if (stored.isDone()) {
            return Uni.createFrom().item(() -> identity(stored.join()));
        }
        // A secret this replica's copy lacks waits for a read of the table, holding no thread: the request goes on on
        // its own Vert.x context once the read is done (a flood of made-up secrets must not take the worker threads).
        Context onContext = Vertx.currentContext();
        if (onContext == null) {
            return context.runBlocking(() -> identity(stored.join()));
        }
        return Uni.createFrom().completionStage(stored).emitOn(next -> onContext.runOnContext(ignored -> next.run()))
                .ifNoItem().after(READ_WAIT).failWith(() -> new AuthenticationFailedException("API key not read in time"))
                .map(ApiKeys::identity);
    }

    private static SecurityIdentity identity(Optional<KeySettings> stored) {
        KeySettings key = stored.orElseThrow(() -> new AuthenticationFailedException("unknown API key"));
        return identity(key.name(), key.role(), key.workerTypes());
    }

    private static SecurityIdentity identity(String name, String role, Set<String> workerTypes) {
        QuarkusSecurityIdentity.Builder identity = QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(name))
                .addAttribute(KeyOwner.KEY_NAME, name);
        if (Roles.WORKER.equals(role)) {
            // A worker key claims and runs its types' tasks: it submits and reads none.
            identity.addRole(Roles.WORKER).addAttribute(KeyOwner.WORKER_TYPES, workerTypes);
        } else {
            identity.addRole(Roles.SUBMIT);
            if (Roles.ADMIN.equals(role)) {
                identity.addRole(Roles.ADMIN);
            }
        }
        return identity.build();
    }
}

package io.taskfence.handlers.builtin;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;
import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySettings;

/**
 * The Standard Webhooks headers of a callback (DESIGN.md, "Callbacks"; decision 0027): {@code webhook-id} (the
 * callback task's id: the same on every attempt), {@code webhook-timestamp} (now, in Unix seconds) and
 * {@code webhook-signature}, signed with the secret of the key that owns the callback task: its
 * {@code callback-secret}, else one derived from its API secret ({@link CallbackSecret}); a key made through the API
 * was given one when it was made. Only the {@code callback}
 * handler asks for them, at send time; no client's value reaches these headers.
 */
@ApplicationScoped
public class CallbackSignatures {

    public static final String ID = "webhook-id";
    public static final String TIMESTAMP = "webhook-timestamp";
    public static final String SIGNATURE = "webhook-signature";

    /** The configured keys' secrets. */
    private final Map<String, CallbackSecret> configured = new HashMap<>();
    /** A stored key's secret as last read ({@code whsec_...}), and the key it is. */
    private record Stored(String written, CallbackSecret secret) {
    }

    private final Map<String, Stored> stored = new ConcurrentHashMap<>();
    private final KeyDirectory keys;

    CallbackSignatures(TaskfenceConfig config, KeyDirectory keys) {
        this.keys = keys;
        // Their form was checked at start (KeyRules); a key without any secret signs nothing (authentication is off).
        config.auth().keys().forEach((name, key) -> key.callbackSecret().map(CallbackSecret::parse)
                .or(() -> key.secret().filter(secret -> !secret.isBlank()).map(CallbackSecret::derivedFrom))
                .ifPresent(secret -> configured.put(name, secret)));
    }

    /** Whether {@code owner}'s callbacks can be signed: a key with a secret. */
    boolean signs(String owner) {
        return secretOf(owner) != null;
    }

    /** {@code owner}'s callback secret: configured, or the one a key made through the API was given; null for none. */
    private CallbackSecret secretOf(String owner) {
        CallbackSecret own = owner == null ? null : configured.get(owner);
        if (own != null || owner == null) {
            return own;
        }
        String written = keys.limitsOf(owner).filter(key -> !key.configured()).flatMap(KeySettings::callbackSecret)
                .orElse(null);
        if (written == null) {
            return null;
        }
        Stored known = stored.get(owner);
        if (known == null || !known.written().equals(written)) {
            known = new Stored(written, CallbackSecret.parse(written));
            stored.put(owner, known);
        }
        return known.secret();
    }

    /** The three headers of a POST of {@code body} for the callback task {@code id} of {@code owner}; none if unsigned. */
    Map<String, String> headers(String owner, String id, byte[] body) {
        CallbackSecret secret = secretOf(owner);
        if (secret == null) {
            return Map.of();
        }
        long timestamp = Instant.now().getEpochSecond();
        return Map.of(ID, id, TIMESTAMP, Long.toString(timestamp), SIGNATURE, secret.signature(id, timestamp, body));
    }
}

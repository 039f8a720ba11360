package io.taskfence.handlers.builtin;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.TaskfenceConfig;

/**
 * The Standard Webhooks headers of a callback (DESIGN.md, "Callbacks"; decision 0027): {@code webhook-id} (the
 * callback task's id: the same on every attempt), {@code webhook-timestamp} (now, in Unix seconds) and
 * {@code webhook-signature}, signed with the secret of the key that owns the callback task: its
 * {@code callback-secret}, else one derived from its API secret ({@link CallbackSecret}). Only the {@code callback}
 * handler asks for them, at send time; no client's value reaches these headers.
 */
@ApplicationScoped
public class CallbackSignatures {

    public static final String ID = "webhook-id";
    public static final String TIMESTAMP = "webhook-timestamp";
    public static final String SIGNATURE = "webhook-signature";

    private final Map<String, CallbackSecret> secrets = new HashMap<>();

    CallbackSignatures(TaskfenceConfig config) {
        // Their form was checked at start (KeyRules); a key without any secret signs nothing (authentication is off).
        config.auth().keys().forEach((name, key) -> key.callbackSecret().map(CallbackSecret::parse)
                .or(() -> key.secret().filter(secret -> !secret.isBlank()).map(CallbackSecret::derivedFrom))
                .ifPresent(secret -> secrets.put(name, secret)));
    }

    /** Whether {@code owner}'s callbacks can be signed: a configured key with a secret ({@code null}: no). */
    boolean signs(String owner) {
        return secrets.containsKey(owner);
    }

    /** The three headers of a POST of {@code body} for the callback task {@code id} of {@code owner}; none if unsigned. */
    Map<String, String> headers(String owner, String id, byte[] body) {
        CallbackSecret secret = owner == null ? null : secrets.get(owner);
        if (secret == null) {
            return Map.of();
        }
        long timestamp = Instant.now().getEpochSecond();
        return Map.of(ID, id, TIMESTAMP, Long.toString(timestamp), SIGNATURE, secret.signature(id, timestamp, body));
    }
}

package io.taskfence.handlers.builtin;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key a key's callbacks are signed with, as Standard Webhooks writes it (standardwebhooks.com; decision 0027):
 * {@code whsec_} and the key's bytes in base64. A callback's {@code webhook-signature} is {@code v1,} and the base64
 * HMAC-SHA256 of {@code <webhook-id>.<webhook-timestamp>.<body>}, which any Standard Webhooks library checks.
 * Its {@link #toString()} never shows the key.
 */
public final class CallbackSecret {

    /** How a written secret begins. */
    public static final String PREFIX = "whsec_";
    /** The fewest bytes of key the prod profile accepts (192 bits, the spec's least). */
    public static final int MIN_PROD_BYTES = 24;
    /** What the secret of a key with no {@code callback-secret} is the HMAC of, keyed by the key's own secret. */
    static final String DERIVATION_LABEL = "taskfence-callback-secret";

    private static final String HMAC = "HmacSHA256";

    private final byte[] key;

    private CallbackSecret(byte[] key) {
        this.key = key.clone();
    }

    /**
     * Why {@code written} cannot be a key's {@code callback-secret} (never quoting it), or empty when it can:
     * {@code whsec_} and base64, of at least {@value #MIN_PROD_BYTES} bytes in the prod profile.
     */
    public static Optional<String> whyNot(String written, boolean prod) {
        String value = written.strip();
        if (!value.startsWith(PREFIX)) {
            return Optional.of("must begin with " + PREFIX + ", followed by the key's bytes in base64 (e.g. "
                    + PREFIX + "$(openssl rand -base64 32))");
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(value.substring(PREFIX.length()));
        } catch (IllegalArgumentException notBase64) {
            return Optional.of("is not " + PREFIX + " followed by base64");
        }
        if (bytes.length == 0 || prod && bytes.length < MIN_PROD_BYTES) {
            return Optional.of("holds " + bytes.length + " bytes of key; the prod profile needs at least "
                    + MIN_PROD_BYTES + " (e.g. " + PREFIX + "$(openssl rand -base64 32))");
        }
        return Optional.empty();
    }

    /** A new secret of 32 random bytes from {@code random}, written as {@code whsec_<base64>}. */
    public static String generate(SecureRandom random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /** The secret written as {@code whsec_<base64>}; its form was checked at start ({@link #whyNot}). */
    static CallbackSecret parse(String written) {
        return new CallbackSecret(Base64.getDecoder().decode(written.strip().substring(PREFIX.length())));
    }

    /**
     * The secret of a key that names none: HMAC-SHA256 of {@value #DERIVATION_LABEL}, keyed by the key's own secret
     * as it is configured, so that the key's holder can compute it and no one else can (decision 0027).
     */
    static CallbackSecret derivedFrom(String apiKeySecret) {
        return new CallbackSecret(hmac(apiKeySecret.strip().getBytes(UTF_8), DERIVATION_LABEL.getBytes(UTF_8)));
    }

    /** {@code v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">}: a {@code webhook-signature} value. */
    String signature(String id, long timestamp, byte[] body) {
        byte[] signed = (id + "." + timestamp + ".").getBytes(UTF_8);
        byte[] content = new byte[signed.length + body.length];
        System.arraycopy(signed, 0, content, 0, signed.length);
        System.arraycopy(body, 0, content, signed.length, body.length);
        return "v1," + Base64.getEncoder().encodeToString(hmac(key, content));
    }

    /** The secret as a receiver configures it: {@code whsec_<base64>}. */
    String written() {
        return PREFIX + Base64.getEncoder().encodeToString(key);
    }

    @Override
    public String toString() {
        return "CallbackSecret[not shown]";
    }

    private static byte[] hmac(byte[] key, byte[] content) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac.doFinal(content);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JVM provides HmacSHA256", e);
        }
    }
}

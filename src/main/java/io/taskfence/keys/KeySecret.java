package io.taskfence.keys;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A key's secret as the service keeps it: its SHA-256 digest. A secret made here is 32 random bytes, so a digest
 * without salt or stretching cannot be turned back into it; configured secrets are compared the same way.
 */
public record KeySecret(String text, byte[] digest) {

    /** What a secret made here starts with, so that one pasted into a log or a repository can be found. */
    public static final String PREFIX = "tfk_";

    /** A new secret from {@code random}: {@value #PREFIX} and 32 bytes in URL-safe base64. */
    public static KeySecret generate(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String text = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        return new KeySecret(text, digest(text));
    }

    /** The SHA-256 digest of {@code secret}'s UTF-8 bytes. */
    public static byte[] digest(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "KeySecret[text=<hidden>]"; // a record would print the secret
    }
}

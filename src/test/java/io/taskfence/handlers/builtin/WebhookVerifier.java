package io.taskfence.handlers.builtin;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A receiver's check of a callback, written from the Standard Webhooks specification as a receiver would write it
 * (not from Taskfence's code): the HMAC-SHA256 of {@code <webhook-id>.<webhook-timestamp>.<raw body>} with the
 * base64-decoded secret after {@code whsec_}, equal to one of the {@code v1,} signatures of {@code webhook-signature},
 * and a timestamp within five minutes of now.
 */
record WebhookVerifier(String secret) {

    static final Duration TOLERANCE = Duration.ofMinutes(5);

    /** The secret of a key that names no {@code callback-secret}, as docs/task-types.md tells its holder to compute it. */
    static WebhookVerifier derivedFromApiKey(String apiKey) {
        return new WebhookVerifier("whsec_" + Base64.getEncoder().encodeToString(
                hmac(apiKey.getBytes(UTF_8), "taskfence-callback-secret".getBytes(UTF_8))));
    }

    boolean verifies(String id, String timestamp, String signatures, byte[] body) {
        if (id == null || timestamp == null || signatures == null
                || Duration.between(Instant.ofEpochSecond(Long.parseLong(timestamp)), Instant.now()).abs()
                        .compareTo(TOLERANCE) > 0) {
            return false;
        }
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        byte[] signed = (id + "." + timestamp + ".").getBytes(UTF_8);
        byte[] content = new byte[signed.length + body.length];
        System.arraycopy(signed, 0, content, 0, signed.length);
        System.arraycopy(body, 0, content, signed.length, body.length);
        byte[] expected = ("v1," + Base64.getEncoder().encodeToString(hmac(key, content))).getBytes(UTF_8);
        for (String signature : signatures.split(" ")) {
            if (MessageDigest.isEqual(expected, signature.getBytes(UTF_8))) {
                return true;
            }
        }
        return false;
    }

    private static byte[] hmac(byte[] key, byte[] content) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(content);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}

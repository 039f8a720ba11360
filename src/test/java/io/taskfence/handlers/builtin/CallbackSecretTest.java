package io.taskfence.handlers.builtin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The signature's form: what a receiver's Standard Webhooks library checks. */
class CallbackSecretTest {

    @Test
    void aSignatureIsTheStandardWebhooksOneItsPublishedTestVectorIncluded() {
        assertEquals("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
                CallbackSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
                        .signature("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "{\"test\": 2432232314}".getBytes(UTF_8)));
    }

    @Test
    void aKeyWithoutACallbackSecretSignsWithTheOneItsHolderComputesFromItsSecret() {
        String apiKey = "tf-sub-7c1e94b2d83f5a06e9c4b17d2f8a305e";
        CallbackSecret derived = CallbackSecret.derivedFrom(apiKey);
        long now = Instant.now().getEpochSecond();
        byte[] body = "{\"id\":\"x\"}".getBytes(UTF_8);
        String signature = derived.signature("m1", now, body);
        assertTrue(WebhookVerifier.derivedFromApiKey(apiKey).verifies("m1", Long.toString(now), signature, body));
        assertFalse(WebhookVerifier.derivedFromApiKey(apiKey + "x").verifies("m1", Long.toString(now), signature, body));
        assertEquals(WebhookVerifier.derivedFromApiKey(apiKey).secret(), derived.written());
        assertFalse(derived.toString().contains(derived.written().substring(6, 20)), "the secret is never shown");
    }

    @Test
    void aCallbackSecretIsWhsecAndBase64OfEnoughBytesInProd() {
        assertEquals(Optional.empty(), CallbackSecret.whyNot("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true));
        assertEquals(Optional.empty(), CallbackSecret.whyNot("whsec_c2hvcnQ=", false), "short is fine outside prod");
        assertTrue(CallbackSecret.whyNot("whsec_c2hvcnQ=", true).orElseThrow().contains("at least 24"));
        assertTrue(CallbackSecret.whyNot("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", false).orElseThrow().contains("must begin with whsec_"));
        assertTrue(CallbackSecret.whyNot("whsec_not*base64", false).orElseThrow().contains("base64"));
        assertTrue(CallbackSecret.whyNot("whsec_", false).isPresent());
    }
}

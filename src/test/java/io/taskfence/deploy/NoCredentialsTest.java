package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Secret;

/**
 * k8s/ creates no usable credential: the Secret comes from the operator's git-ignored secrets.env, and the
 * committed example renders with every password and key secret empty (which the service refuses).
 */
class NoCredentialsTest {

    private static final Path K8S = Path.of("k8s");

    @Test
    void theOperatorsSecretsFileIsNotCommittedAndTheExampleHoldsNoCredential() throws Exception {
        assertFalse(Files.exists(K8S.resolve("secret.yaml")), "a literal Secret is back in k8s/");
        String gitignore = Files.readString(Path.of(".gitignore"));
        assertTrue(gitignore.lines().anyMatch("k8s/secrets.env"::equals), ".gitignore must keep k8s/secrets.env out");

        Rendering rendering = Rendering.parse(Rendering.render(Rendering.withSecretsFile(K8S)));
        Secret secret = rendering.named(Secret.class, "taskfence");
        Map<String, String> data = secret.getData();
        assertTrue(data.containsKey("QUARKUS_DATASOURCE_PASSWORD") && data.containsKey("TASKFENCE_AUTH_KEYS_ADMIN_SECRET"),
                "the example names the variables the Deployment and the demo servers read: " + data.keySet());
        data.forEach((key, value) -> {
            if (key.endsWith("PASSWORD") || key.endsWith("_SECRET")) {
                assertEquals("", new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8),
                        key + " has a value in the rendering of the committed example");
            }
        });
        assertTrue(secret.getStringData() == null || secret.getStringData().isEmpty(), "stringData: " + secret.getStringData());
    }
}

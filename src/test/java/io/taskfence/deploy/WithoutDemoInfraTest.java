package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

/**
 * The README tells those with their own Redis and PostgreSQL to drop the demo component from
 * k8s/kustomization.yaml; what remains must still render, complete, and without the demo servers.
 */
class WithoutDemoInfraTest {

    @Test
    void rendersTheApplicationAloneWhenTheComponentIsLeftOut(@TempDir Path copy) throws IOException {
        Path k8s = KubernetesManifestsTest.PROJECT.resolve("k8s");
        copyTree(k8s, copy);
        YAMLMapper yaml = new YAMLMapper();
        ObjectNode kustomization = (ObjectNode) yaml.readTree(copy.resolve("kustomization.yaml").toFile());
        assertNotNull(kustomization.remove("components"), "k8s/kustomization.yaml lists no components to leave out");
        yaml.writeValue(copy.resolve("kustomization.yaml").toFile(), kustomization);

        Rendering rendering = Rendering.of(copy);

        assertEquals(List.of(), rendering.all(StatefulSet.class), "StatefulSets left without the demo component");
        assertTrue(rendering.workloads().stream()
                .flatMap(workload -> KubernetesManifestsTest.containersOf(workload.template().getSpec()).stream())
                .noneMatch(container -> container.getImage().startsWith("redis") || container.getImage().startsWith("postgres")),
                "a Redis or PostgreSQL image is still deployed");
        String app = KubernetesManifestsTest.APP;
        rendering.named(Deployment.class, app);
        rendering.named(Service.class, app);
        rendering.named(ConfigMap.class, app);
        rendering.named(Secret.class, app);
        rendering.named(PodDisruptionBudget.class, app);
        rendering.named(NetworkPolicy.class, app);
        assertEquals(1, rendering.all(NetworkPolicy.class).size(), "only the application's NetworkPolicy remains");
    }

    private static void copyTree(Path from, Path to) {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : paths.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

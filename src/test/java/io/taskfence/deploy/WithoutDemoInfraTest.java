package io.taskfence.deploy;

import static io.taskfence.deploy.KubernetesManifestsTest.APP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
 * docs/operations.md tells those with their own Redis and PostgreSQL to drop the demo component from
 * k8s/kustomization.yaml; what remains must still render, complete, and without the demo servers.
 */
class WithoutDemoInfraTest {

    @Test
    void rendersTheApplicationAloneWhenTheComponentIsLeftOut(@TempDir Path temp) throws IOException {
        Path k8s = KubernetesManifestsTest.PROJECT.resolve("k8s");
        Path copy = temp.resolve("k8s");
        try (Stream<Path> files = Files.walk(k8s)) {
            for (Path file : files.toList()) {
                // The walk lists a directory before its files; Files.copy makes it, empty.
                Files.copy(file, copy.resolve(k8s.relativize(file).toString()));
            }
        }
        YAMLMapper yaml = new YAMLMapper();
        ObjectNode kustomization = (ObjectNode) yaml.readTree(copy.resolve("kustomization.yaml").toFile());
        assertNotNull(kustomization.remove("components"), "k8s/kustomization.yaml lists no components to leave out");
        yaml.writeValue(copy.resolve("kustomization.yaml").toFile(), kustomization);

        Rendering rendering = Rendering.of(copy);

        assertEquals(List.of(), rendering.all(StatefulSet.class), "StatefulSets left without the demo component");
        assertTrue(rendering.workloads().stream().flatMap(workload -> workload.containers().stream())
                .noneMatch(container -> container.getImage().startsWith("redis") || container.getImage().startsWith("postgres")),
                "a Redis or PostgreSQL image is still deployed");
        for (var kind : List.of(Deployment.class, Service.class, ConfigMap.class, Secret.class, PodDisruptionBudget.class, NetworkPolicy.class)) {
            rendering.named(kind, APP);
        }
        assertEquals(1, rendering.all(NetworkPolicy.class).size(), "only the application's NetworkPolicy remains");
    }
}

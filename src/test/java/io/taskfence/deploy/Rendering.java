package io.taskfence.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/**
 * What {@code kubectl kustomize} made of a kustomization, read into fabric8's Kubernetes model: each
 * document becomes the typed object its apiVersion and kind name.
 */
record Rendering(List<HasMetadata> objects) {

    private static final YAMLMapper YAML = new YAMLMapper();

    Rendering {
        objects = List.copyOf(objects);
    }

    static Rendering of(Path kustomizationDir) {
        return parse(Kubectl.kustomize(kustomizationDir));
    }

    static Rendering parse(String yaml) {
        List<HasMetadata> objects = new ArrayList<>();
        try (MappingIterator<KubernetesResource> documents = YAML.readerFor(KubernetesResource.class).readValues(yaml)) {
            while (documents.hasNext()) {
                KubernetesResource document = documents.next();
                if (!(document instanceof HasMetadata object)) {
                    throw new AssertionError("not a Kubernetes object: " + document);
                }
                objects.add(object);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Rendering(objects);
    }

    <T extends HasMetadata> List<T> all(Class<T> kind) {
        return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    /** The one object of that kind and name; fails the test when there is none. */
    <T extends HasMetadata> T named(Class<T> kind, String name) {
        return all(kind).stream()
                .filter(object -> name.equals(object.getMetadata().getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the rendering has no " + kind.getSimpleName() + " named " + name));
    }

    /** Every pod template: those of the Deployments and of the StatefulSets. */
    List<Workload> workloads() {
        return Stream.concat(
                all(Deployment.class).stream().map(d -> new Workload("Deployment " + d.getMetadata().getName(), d.getSpec().getTemplate())),
                all(StatefulSet.class).stream().map(s -> new Workload("StatefulSet " + s.getMetadata().getName(), s.getSpec().getTemplate())))
                .toList();
    }

    /** A pod template and the object that owns it, named for messages. */
    record Workload(String name, PodTemplateSpec template) {
    }
}

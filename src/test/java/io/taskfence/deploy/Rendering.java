package io.taskfence.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/**
 * What the real {@code kubectl kustomize} (the renderer of {@code kubectl apply -k}) makes of a
 * kustomization, read into fabric8's Kubernetes model by apiVersion and kind.
 */
record Rendering(List<HasMetadata> objects) {

    /**
     * fabric8 keeps a field it does not know in additionalProperties (its any-setter) instead of failing,
     * while the API server refuses it; without the any-setter a misspelt {@code readinesProbe} fails the
     * reading, with the path to it, instead of going missing.
     */
    private static final YAMLMapper STRICT_YAML = YAMLMapper.builder()
            .annotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public Boolean hasAnySetter(Annotated member) {
                    return false;
                }
            })
            .build();

    /**
     * Fails, rather than skips, without kubectl: skipping would let a broken k8s/ pass unnoticed. Without the
     * operator's {@code secrets.env} (git-ignored), renders a copy that has the committed example in its place.
     */
    static Rendering of(Path kustomization) {
        return parse(render(withSecretsFile(kustomization)));
    }

    /** What kubectl kustomize prints for the kustomization. */
    static String render(Path kustomization) {
        try {
            Path out = Files.createTempFile("kustomize", ".yaml");
            Path err = Files.createTempFile("kustomize", ".err");
            try {
                Process kubectl = new ProcessBuilder("kubectl", "kustomize", kustomization.toString())
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!kubectl.waitFor(60, TimeUnit.SECONDS)) {
                    kubectl.destroyForcibly();
                    throw new AssertionError("kubectl kustomize " + kustomization + " did not finish within 60 s");
                }
                if (kubectl.exitValue() != 0) {
                    throw new AssertionError("kubectl kustomize " + kustomization + " failed:\n" + Files.readString(err));
                }
                return Files.readString(out);
            } finally {
                Files.delete(out);
                Files.delete(err);
            }
        } catch (IOException e) {
            throw new AssertionError("could not run kubectl kustomize (" + e.getMessage()
                    + "); checking k8s/ needs kubectl 1.27 or newer (it includes kustomize) on the PATH", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while kubectl kustomize " + kustomization + " ran", e);
        }
    }

    /** The kustomization itself when it has secrets.env or no example of one; else a copy given the example. */
    static Path withSecretsFile(Path kustomization) {
        Path example = kustomization.resolve("secrets.env.example");
        if (Files.exists(kustomization.resolve("secrets.env")) || !Files.exists(example)) {
            return kustomization;
        }
        try {
            Path copy = Files.createTempDirectory("k8s");
            try (Stream<Path> files = Files.walk(kustomization)) {
                for (Path file : files.toList()) {
                    Path target = copy.resolve(kustomization.relativize(file).toString());
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(file, target);
                    }
                }
            }
            Files.copy(example, copy.resolve("secrets.env"));
            return copy;
        } catch (IOException e) {
            throw new AssertionError("could not copy " + kustomization, e);
        }
    }

    static Rendering parse(String yaml) {
        List<HasMetadata> objects = new ArrayList<>();
        try (var documents = STRICT_YAML.readerFor(KubernetesResource.class).<KubernetesResource>readValues(yaml)) {
            documents.forEachRemaining(document -> objects.add((HasMetadata) document));
        } catch (IOException | RuntimeException e) {
            if (e.getCause() instanceof UnrecognizedPropertyException unknown) {
                throw new AssertionError(where(unknown) + " is a field the Kubernetes API does not know; the API server would refuse it", e);
            }
            throw new AssertionError("the rendering is not what the Kubernetes API accepts: " + e.getMessage(), e);
        }
        return new Rendering(List.copyOf(objects));
    }

    /** Such as {@code Deployment taskfence: spec.template.spec.containers[0].readinesProbe}. */
    private static String where(JsonMappingException e) {
        Object top = e.getPath().getFirst().getFrom();
        String name = top instanceof HasMetadata object && object.getMetadata() != null ? " " + object.getMetadata().getName() : "";
        return top.getClass().getSimpleName() + name + ": " + e.getPath().stream()
                .map(step -> step.getIndex() >= 0 ? "[" + step.getIndex() + "]" : "." + step.getFieldName())
                .collect(Collectors.joining()).substring(1);
    }

    <T extends HasMetadata> List<T> all(Class<T> kind) {
        return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    <T extends HasMetadata> T named(Class<T> kind, String name) {
        return all(kind).stream().filter(object -> name.equals(object.getMetadata().getName())).findFirst()
                .orElseThrow(() -> new AssertionError("the rendering has no " + kind.getSimpleName() + " named " + name));
    }

    /** The pod templates of every Deployment and StatefulSet. */
    List<Workload> workloads() {
        return Stream.concat(
                all(Deployment.class).stream().map(d -> new Workload("Deployment " + d.getMetadata().getName(), d.getSpec().getTemplate())),
                all(StatefulSet.class).stream().map(s -> new Workload("StatefulSet " + s.getMetadata().getName(), s.getSpec().getTemplate())))
                .toList();
    }

    /** A pod template, named after its owner for messages. */
    record Workload(String name, PodTemplateSpec template) {

        /** Init containers included: they run in the pod too. */
        List<Container> containers() {
            return Stream.concat(template.getSpec().getInitContainers().stream(), template.getSpec().getContainers().stream()).toList();
        }
    }
}

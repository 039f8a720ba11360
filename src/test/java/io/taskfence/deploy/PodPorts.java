package io.taskfence.deploy;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;

/** How Kubernetes resolves ports by name and matches labels, for the checks on the rendering. */
final class PodPorts {

    private PodPorts() {
    }

    /**
     * The number a probe's or a Service's port stands for among these containers' ports: a number as it
     * is, a name looked up the way the kubelet and the endpoints controller do. Fails for a name no
     * container declares: such a probe never succeeds, such a Service never gets endpoints.
     */
    static int resolve(IntOrString port, Collection<Container> containers) {
        Objects.requireNonNull(port, "no port given");
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return containers.stream()
                .flatMap(container -> container.getPorts().stream())
                .filter(declared -> port.getStrVal().equals(declared.getName()))
                .map(ContainerPort::getContainerPort)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container declares a port named " + port.getStrVal()));
    }

    /** Whether a selector picks pods with these labels; matchExpressions are not used in k8s/. */
    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        if (selector.getMatchExpressions() != null && !selector.getMatchExpressions().isEmpty()) {
            throw new AssertionError("matchExpressions are not checked here; use matchLabels: " + selector);
        }
        return selects(selector.getMatchLabels(), labels);
    }

    /** Whether labels to match (a Service's selector, matchLabels) pick pods with these labels. */
    static boolean selects(Map<String, String> matchLabels, Map<String, String> labels) {
        return matchLabels != null && labels != null && labels.entrySet().containsAll(matchLabels.entrySet());
    }
}

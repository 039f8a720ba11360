package io.taskfence.deploy;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.openshift.api.model.monitoring.v1.PodMetricsEndpoint;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.worker.RunningTasksProfile;

/**
 * The optional monitoring component (k8s/components/monitoring): it renders into the application, its
 * PodMonitor scrapes the port and path the pods serve metrics on, and every metric its alerts and its Grafana
 * panels query is one a running replica exposes. A renamed metric would otherwise leave an alert that never
 * fires and a panel that stays empty, with nothing to say so.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class MonitoringComponentTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Names of series in PromQL: Taskfence's own, and those Quarkus's Micrometer binders publish. */
    private static final Pattern METRIC = Pattern.compile("\\b((?:taskfence|http_server|jvm|kube)_[a-z0-9_]+)\\b");
    /** Metrics of kube-state-metrics, which the cluster's Prometheus stack scrapes, not the service. */
    private static final String KUBE_STATE_METRICS = "kube_";

    @TestHTTPResource(value = "/", management = true)
    URI management;

    @Test
    void everyMetricTheAlertsAndPanelsQueryIsOneTheServiceExposes(@TempDir Path temp) throws IOException {
        Rendering rendering = Rendering.of(withMonitoring(temp));
        List<String> queries = new ArrayList<>();
        PrometheusRule rules = rendering.named(PrometheusRule.class, KubernetesManifestsTest.APP);
        List<String> alerts = new ArrayList<>();
        for (Rule rule : rules.getSpec().getGroups().getFirst().getRules()) {
            alerts.add(rule.getAlert());
            queries.add(rule.getExpr().getStrVal());
            assertEquals("docs/operations.md#runbook-" + rule.getAlert().toLowerCase(), rule.getAnnotations().get("runbook"),
                    "the runbook of " + rule.getAlert());
        }
        JsonNode dashboard = JSON.readTree(rendering.named(ConfigMap.class, "taskfence-grafana-dashboard").getData()
                .get("taskfence.json"));
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(target.path("expr").asText());
            }
        }
        assertTrue(alerts.size() >= 8 && dashboard.path("panels").size() >= 10,
                "alerts " + alerts + ", panels " + dashboard.path("panels").size());

        String readme = Files.readString(KubernetesManifestsTest.PROJECT.resolve("docs/operations.md"));
        for (String alert : alerts) {
            assertTrue(readme.contains("#### Runbook: " + alert + "\n"), "docs/operations.md has no runbook heading for " + alert);
        }

        Set<String> used = new TreeSet<>();
        for (String query : queries) {
            Matcher metric = METRIC.matcher(query);
            while (metric.find()) {
                used.add(metric.group(1));
            }
        }
        assertTrue(used.contains("taskfence_transitions_total") && used.contains("taskfence_lock_losses_total"), "" + used);

        // Each series must exist: run a task (its timers start at its first run) and call the API once.
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json")
                .body("{\"type\":\"noop\",\"payload\":{}}").post("/api/v1/tasks").then().statusCode(201);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            String scrape = given().get(management.resolve("/q/metrics")).then().statusCode(200).extract().asString();
            List<String> missing = used.stream().filter(name -> !name.startsWith(KUBE_STATE_METRICS))
                    .filter(name -> scrape.lines().noneMatch(line -> line.startsWith(name + "{") || line.startsWith(name + " ")))
                    .toList();
            assertEquals(List.of(), missing, "queried by the monitoring component, absent from /q/metrics");
        });
    }

    @Test
    void thePodMonitorScrapesThePortAndPathThePodsServeMetricsOn(@TempDir Path temp) throws IOException {
        Rendering rendering = Rendering.of(withMonitoring(temp));
        Deployment deployment = rendering.named(Deployment.class, KubernetesManifestsTest.APP);
        PodMonitor monitor = rendering.named(PodMonitor.class, KubernetesManifestsTest.APP);
        PodMetricsEndpoint endpoint = monitor.getSpec().getPodMetricsEndpoints().getFirst();
        String port = endpoint.getPort();
        List<ContainerPort> ports = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getPorts();
        assertTrue(ports.stream().anyMatch(p -> p.getName().equals(port) && p.getContainerPort() == 9000),
                "the PodMonitor's port '" + port + "' is the container's management port");
        assertEquals(deployment.getSpec().getTemplate().getMetadata().getAnnotations().get("prometheus.io/path"),
                endpoint.getPath());
        Map<String, String> selected = monitor.getSpec().getSelector().getMatchLabels();
        assertFalse(selected.isEmpty(), "the PodMonitor selects by labels");
        assertTrue(deployment.getSpec().getTemplate().getMetadata().getLabels().entrySet().containsAll(selected.entrySet()),
                "the pods carry every label the PodMonitor selects: " + selected);
        // The dashboard's sidecar finds it by this label.
        assertEquals("1", rendering.named(ConfigMap.class, "taskfence-grafana-dashboard").getMetadata().getLabels()
                .get("grafana_dashboard"));
    }

    /** A copy of k8s/ whose kustomization adds the monitoring component, as docs/operations.md tells operators to. */
    private static Path withMonitoring(Path temp) throws IOException {
        Path k8s = KubernetesManifestsTest.PROJECT.resolve("k8s");
        Path copy = temp.resolve("k8s");
        try (Stream<Path> files = Files.walk(k8s)) {
            for (Path file : files.toList()) {
                Files.copy(file, copy.resolve(k8s.relativize(file).toString()));
            }
        }
        Path kustomization = copy.resolve("kustomization.yaml");
        String text = Files.readString(kustomization);
        String withComponent = text.replace("  - components/demo-infra\n", "  - components/demo-infra\n  - components/monitoring\n");
        assertFalse(text.equals(withComponent), "k8s/kustomization.yaml lists no components");
        Files.writeString(kustomization, withComponent);
        return copy;
    }
}

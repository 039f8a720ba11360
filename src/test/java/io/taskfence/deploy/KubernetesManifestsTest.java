package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.taskfence.deploy.Rendering.Workload;

/**
 * Renders k8s/ with kubectl and checks what would break a rollout or weaken the pods: probes on the wrong
 * path or port, settings nobody reads, selectors that miss the pods (or catch others), a grace period
 * shorter than the drain, containers without limits or hardening. Reading the rendering already refuses
 * fields the Kubernetes API does not know.
 */
class KubernetesManifestsTest {

    static final Path PROJECT = Path.of(System.getProperty("basedir", "."));
    static final String APP = "taskfence";

    private static Rendering rendering;
    private static Deployment deployment;
    private static Container app;
    private static Map<String, String> environment;
    /** The application's settings as it reads them in its container. */
    private static SmallRyeConfig config;
    private static int httpPort;
    private static int managementPort;

    @BeforeAll
    static void render() throws IOException {
        rendering = Rendering.of(PROJECT.resolve("k8s"));
        deployment = rendering.named(Deployment.class, APP);
        app = deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(container -> APP.equals(container.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the Deployment has no container named " + APP));
        environment = environmentOf(app);
        // As Quarkus reads them: the environment over application.properties, the prod profile, its Duration format.
        config = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withProfile("prod")
                .withSources(new EnvConfigSource(environment, 300),
                        new PropertiesConfigSource(PROJECT.resolve("src/main/resources/application.properties").toUri().toURL(), 250))
                .withConverter(Duration.class, 200, new DurationConverter())
                .build();
        httpPort = config.getOptionalValue("quarkus.http.port", Integer.class).orElse(8080);
        managementPort = config.getOptionalValue("quarkus.management.port", Integer.class).orElse(9000);
    }

    @Test
    void probesAskTheHealthEndpointsOnTheManagementPort() {
        assertEquals(httpPort, portNumber(new IntOrString("http"), List.of(app)),
                "the container port named http is the one the application listens on");
        assertEquals(managementPort, portNumber(new IntOrString("management"), List.of(app)),
                "the container port named management is the one the management interface listens on");
        assertProbe("startup", app.getStartupProbe(), "/q/health/started");
        assertProbe("liveness", app.getLivenessProbe(), "/q/health/live");
        assertProbe("readiness", app.getReadinessProbe(), "/q/health/ready");
    }

    private static void assertProbe(String kind, Probe probe, String path) {
        assertNotNull(probe, "the " + kind + " probe is missing");
        assertNotNull(probe.getHttpGet(), "the " + kind + " probe is not an HTTP GET");
        assertEquals(path, probe.getHttpGet().getPath(), "the " + kind + " probe's path");
        assertEquals(managementPort, portNumber(probe.getHttpGet().getPort(), List.of(app)),
                "the " + kind + " probe's port: health is served on the management interface only");
        assertTrue(probe.getHttpGet().getScheme() == null || probe.getHttpGet().getScheme().equals("HTTP"),
                "the " + kind + " probe speaks plain HTTP, as the application does");
    }

    /** The port is the container port that the application listens on, by name or by number. */
    private static void assertApplicationPort(IntOrString port, String what) {
        int number = portNumber(port, List.of(app));
        assertEquals(httpPort, number, what);
        assertTrue(app.getPorts().stream().anyMatch(declared -> declared.getContainerPort() == number),
                what + ": the container declares no port " + number);
    }

    @Test
    void theServiceSendsRequestsToTheApplicationsPort() {
        Service service = rendering.named(Service.class, APP);
        assertFalse(service.getSpec().getPorts().isEmpty(), "the Service has no ports");
        for (ServicePort port : service.getSpec().getPorts()) {
            assertApplicationPort(port.getTargetPort(), "the targetPort of Service port " + port.getPort());
        }
    }

    @Test
    void everyEnvironmentVariableNamesASettingThatIsRead() {
        Set<String> names = new LinkedHashSet<>(environment.keySet());
        rendering.all(ConfigMap.class).forEach(configMap -> names.addAll(configMap.getData().keySet()));
        // Service links: unless switched off, every Service in the namespace puts <NAME>_SERVICE_HOST and
        // the like into the container, and a Service called taskfence puts them into taskfence.*.
        if (!Boolean.FALSE.equals(deployment.getSpec().getTemplate().getSpec().getEnableServiceLinks())) {
            for (Service service : rendering.all(Service.class)) {
                String prefix = service.getMetadata().getName().toUpperCase(Locale.ROOT).replace('-', '_');
                names.addAll(List.of(prefix + "_SERVICE_HOST", prefix + "_SERVICE_PORT", prefix + "_PORT"));
            }
        }
        assertEquals(List.of(), KnownEnvNames.unknownAmong(names), "environment variables that no setting reads");
    }

    @Test
    void everySecretAndConfigMapReferencedIsThereWithItsKeys() {
        record Reference(String kind, String name, String key, Boolean optional) {
        }
        List<String> missing = new ArrayList<>();
        for (Workload workload : rendering.workloads()) {
            for (Container container : workload.containers()) {
                List<Reference> references = new ArrayList<>();
                for (EnvFromSource from : container.getEnvFrom()) {
                    Optional.ofNullable(from.getConfigMapRef()).ifPresent(ref -> references.add(new Reference("ConfigMap", ref.getName(), null, ref.getOptional())));
                    Optional.ofNullable(from.getSecretRef()).ifPresent(ref -> references.add(new Reference("Secret", ref.getName(), null, ref.getOptional())));
                }
                for (EnvVar variable : container.getEnv()) {
                    EnvVarSource from = Optional.ofNullable(variable.getValueFrom()).orElseGet(EnvVarSource::new);
                    Optional.ofNullable(from.getConfigMapKeyRef()).ifPresent(ref -> references.add(new Reference("ConfigMap", ref.getName(), ref.getKey(), ref.getOptional())));
                    Optional.ofNullable(from.getSecretKeyRef()).ifPresent(ref -> references.add(new Reference("Secret", ref.getName(), ref.getKey(), ref.getOptional())));
                }
                for (Reference ref : references) {
                    Set<String> keys = keysOf(ref.kind(), ref.name());
                    if (!Boolean.TRUE.equals(ref.optional()) && (keys == null || ref.key() != null && !keys.contains(ref.key()))) {
                        missing.add(workload.name() + ": " + (ref.key() == null ? "" : "key " + ref.key() + " of ") + ref.kind() + " " + ref.name());
                    }
                }
            }
        }
        assertEquals(List.of(), missing, "references the pods could not start without (CreateContainerConfigError)");
    }

    @Test
    void theApplicationImageIsThisVersion() {
        String version = System.getProperty("project.version");
        assertNotNull(version, "run the tests through Maven: surefire passes the project's version as project.version");
        assertEquals("taskfence/taskfence:" + version, app.getImage());
    }

    @Test
    void everyImageHasAFixedTag() {
        for (Workload workload : rendering.workloads()) {
            for (Container container : workload.containers()) {
                String image = container.getImage();
                String lastSegment = image.substring(image.lastIndexOf('/') + 1);
                assertTrue(image.contains("@sha256:") || (lastSegment.contains(":") && !lastSegment.endsWith(":latest")),
                        workload.name() + " runs " + image + ", which may change under it");
            }
        }
    }

    @Test
    void threeOrMoreReplicasShareTheWork() {
        assertTrue(deployment.getSpec().getReplicas() != null && deployment.getSpec().getReplicas() >= 3,
                "replicas: " + deployment.getSpec().getReplicas());
    }

    @Test
    void everyContainerHasLimitsAndRunsLockedDown() {
        List<String> problems = new ArrayList<>();
        for (Workload workload : rendering.workloads()) {
            PodSpec pod = workload.template().getSpec();
            PodSecurityContext podContext = Optional.ofNullable(pod.getSecurityContext()).orElseGet(PodSecurityContext::new);
            for (Container container : workload.containers()) {
                ResourceRequirements resources = Optional.ofNullable(container.getResources()).orElseGet(ResourceRequirements::new);
                SecurityContext context = Optional.ofNullable(container.getSecurityContext()).orElseGet(SecurityContext::new);
                SeccompProfile seccomp = either(context.getSeccompProfile(), podContext.getSeccompProfile());
                Map<String, Boolean> wrong = new LinkedHashMap<>();
                for (String resource : List.of("cpu", "memory")) {
                    wrong.put("no " + resource + " request", !resources.getRequests().containsKey(resource));
                    wrong.put("no " + resource + " limit", !resources.getLimits().containsKey(resource));
                }
                wrong.put("runAsNonRoot is not true", !Boolean.TRUE.equals(either(context.getRunAsNonRoot(), podContext.getRunAsNonRoot())));
                wrong.put("runs as user 0", Long.valueOf(0).equals(either(context.getRunAsUser(), podContext.getRunAsUser())));
                wrong.put("readOnlyRootFilesystem is not true", !Boolean.TRUE.equals(context.getReadOnlyRootFilesystem()));
                wrong.put("allowPrivilegeEscalation is not false", !Boolean.FALSE.equals(context.getAllowPrivilegeEscalation()));
                wrong.put("privileged", Boolean.TRUE.equals(context.getPrivileged()));
                wrong.put("capabilities do not drop ALL", context.getCapabilities() == null || !context.getCapabilities().getDrop().contains("ALL"));
                wrong.put("no RuntimeDefault seccomp profile", seccomp == null || !"RuntimeDefault".equals(seccomp.getType()));
                wrong.forEach((problem, found) -> {
                    if (found) {
                        problems.add(workload.name() + ", container " + container.getName() + ": " + problem);
                    }
                });
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theApplicationWritesOnlyToAnEmptyDirAtTmp() {
        VolumeMount tmp = app.getVolumeMounts().stream()
                .filter(mount -> "/tmp".equals(mount.getMountPath()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("nothing is mounted at /tmp, which the read-only root leaves unwritable"));
        assertFalse(Boolean.TRUE.equals(tmp.getReadOnly()), "/tmp is mounted read-only");
        Volume volume = deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(candidate -> candidate.getName().equals(tmp.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume named " + tmp.getName()));
        assertNotNull(volume.getEmptyDir(), "/tmp is not an emptyDir");
    }

    @Test
    void shutdownHasTimeToDrainRunningTasks() {
        assertTrue(app.getEnvFrom().stream().anyMatch(source -> source.getConfigMapRef() != null
                && rendering.named(ConfigMap.class, source.getConfigMapRef().getName()).getData().containsKey("TASKFENCE_WORKER_DRAIN_TIMEOUT")),
                "the ConfigMap sets TASKFENCE_WORKER_DRAIN_TIMEOUT explicitly, so the two stay side by side");
        Duration drain = config.getValue("taskfence.worker.drain-timeout", Duration.class);
        Long grace = deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        Duration gracePeriod = Duration.ofSeconds(grace == null ? 30 : grace);
        // The preStop pause (endpoints catch up before SIGTERM) counts against the grace period too.
        var lifecycle = app.getLifecycle();
        assertNotNull(lifecycle == null ? null : lifecycle.getPreStop(), "a preStop pause lets the Service stop routing first");
        assertNotNull(lifecycle.getPreStop().getSleep(), "the preStop pause is a sleep action (no shell needed)");
        Duration preStop = Duration.ofSeconds(lifecycle.getPreStop().getSleep().getSeconds());
        // After the drain the replica still hands unfinished tasks back and leaves the consumer group; a
        // SIGKILL before that leaves them to the processing lease, minutes later.
        assertTrue(gracePeriod.compareTo(preStop.plus(drain).plusSeconds(10)) >= 0,
                "terminationGracePeriodSeconds " + gracePeriod.toSeconds() + " s leaves under 10 s after a preStop pause of "
                        + preStop.toSeconds() + " s and a drain of " + drain.toSeconds() + " s");
    }

    @Test
    void theApplicationsSelectorsPickItsPodsAndNothingElse() {
        String pods = "Deployment " + APP;
        assertPicksOnly(pods, "the Deployment selector", deployment.getSpec().getSelector());
        assertPicksOnly(pods, "the Service", new LabelSelector(null, rendering.named(Service.class, APP).getSpec().getSelector()));
        assertPicksOnly(pods, "the PodDisruptionBudget", rendering.named(PodDisruptionBudget.class, APP).getSpec().getSelector());
        assertPicksOnly(pods, "the NetworkPolicy", rendering.named(NetworkPolicy.class, APP).getSpec().getPodSelector());
        List<TopologySpreadConstraint> spread = deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints();
        spread.forEach(constraint -> assertPicksOnly(pods, "the topology spread over " + constraint.getTopologyKey(), constraint.getLabelSelector()));
        assertEquals(Set.of("kubernetes.io/hostname", "topology.kubernetes.io/zone"),
                spread.stream().map(TopologySpreadConstraint::getTopologyKey).collect(Collectors.toSet()),
                "replicas spread across nodes and zones");
    }

    @Test
    void eachStatefulSetSelectsOnlyItsOwnPods() {
        for (StatefulSet set : rendering.all(StatefulSet.class)) {
            String pods = "StatefulSet " + set.getMetadata().getName();
            assertPicksOnly(pods, "the selector of " + pods, set.getSpec().getSelector());
        }
    }

    /** The selector picks the pods of that workload and of no other. */
    private static void assertPicksOnly(String pods, String what, LabelSelector selector) {
        for (Workload workload : rendering.workloads()) {
            boolean own = workload.name().equals(pods);
            assertEquals(own, selects(selector, workload.template().getMetadata().getLabels()),
                    own ? what + " misses the pods of " + pods : what + " also picks the pods of " + workload.name());
        }
    }

    @Test
    void theNetworkPolicyLetsRequestsInAndRedisPostgresqlAndDnsOut() {
        NetworkPolicy policy = rendering.named(NetworkPolicy.class, APP);
        assertTrue(policy.getSpec().getIngress().stream().anyMatch(rule -> allowsPort(rule.getPorts(), "TCP", httpPort, List.of(app))),
                "no ingress rule lets requests reach port " + httpPort);
        // The management interface (metrics, the API document) is for the monitoring namespace, not for anyone.
        assertTrue(policy.getSpec().getIngress().stream().noneMatch(rule -> (rule.getFrom() == null || rule.getFrom().isEmpty())
                && allowsPort(rule.getPorts(), "TCP", managementPort, List.of(app))),
                "an ingress rule opens the management port " + managementPort + " to every peer");
        assertTrue(policy.getSpec().getIngress().stream().anyMatch(rule -> rule.getFrom() != null && rule.getFrom().stream()
                .anyMatch(peer -> peer.getNamespaceSelector() != null) && allowsPort(rule.getPorts(), "TCP", managementPort, List.of(app))),
                "no ingress rule lets a monitoring namespace reach the management port " + managementPort);
        List<List<NetworkPolicyPort>> egress = policy.getSpec().getEgress().stream().map(rule -> rule.getPorts()).toList();
        assertTrue(egress.stream().anyMatch(ports -> allowsPort(ports, "UDP", 53, List.of(app))), "DNS (53/UDP) is blocked");
        for (URI redis : redisHosts()) {
            assertTrue(egress.stream().anyMatch(ports -> allowsPort(ports, "TCP", portOr(redis, 6379), List.of(app))), "Redis at " + redis + " is blocked");
        }
        URI postgres = postgresUrl();
        assertTrue(egress.stream().anyMatch(ports -> allowsPort(ports, "TCP", portOr(postgres, 5432), List.of(app))), "PostgreSQL at " + postgres + " is blocked");
    }

    /** With the demo servers in the rendering, the way out to their ports leads to their pods only. */
    @Test
    void withTheDemoServersTheEgressToRedisAndPostgresqlReachesTheirPodsOnly() {
        assumeFalse(rendering.all(StatefulSet.class).isEmpty(), "k8s/ leaves the demo component out: Redis and PostgreSQL are your own");
        NetworkPolicy policy = rendering.named(NetworkPolicy.class, APP);
        for (int port : List.of(6379, 5432)) {
            List<NetworkPolicyPeer> peers = new ArrayList<>();
            policy.getSpec().getEgress().stream().filter(rule -> allowsPort(rule.getPorts(), "TCP", port, List.of(app)))
                    .forEach(rule -> {
                        assertTrue(rule.getTo() != null && !rule.getTo().isEmpty(), "port " + port + " is open to any address");
                        peers.addAll(rule.getTo());
                    });
            assertFalse(peers.isEmpty(), "port " + port + " is blocked");
            for (NetworkPolicyPeer peer : peers) {
                assertTrue(peer.getIpBlock() == null && peer.getNamespaceSelector() == null, "port " + port + ": " + peer);
                List<String> servers = rendering.all(StatefulSet.class).stream()
                        .filter(set -> selects(peer.getPodSelector(), set.getSpec().getTemplate().getMetadata().getLabels()))
                        .map(set -> set.getMetadata().getName()).toList();
                assertEquals(1, servers.size(), "port " + port + " leads to the pods of " + servers);
            }
        }
    }

    @Test
    void theDemoRedisAndPostgresqlAnswerWhereTheConfigurationPoints() {
        assumeFalse(rendering.all(StatefulSet.class).isEmpty(), "k8s/ leaves the demo component out: Redis and PostgreSQL are your own");
        URI redis = redisHosts().getFirst();
        Container redisServer = assertServedByStatefulSet(redis.getHost(), portOr(redis, 6379));
        assertEquals(secretRef("QUARKUS_REDIS_PASSWORD", app), secretRef("REDIS_PASSWORD", redisServer),
                "Redis's password is the one the application sends");

        URI postgres = postgresUrl();
        Container postgresServer = assertServedByStatefulSet(postgres.getHost(), portOr(postgres, 5432));
        Map<String, String> postgresEnvironment = environmentOf(postgresServer);
        assertEquals(environment.get("QUARKUS_DATASOURCE_USERNAME"), postgresEnvironment.get("POSTGRES_USER"), "the database user");
        assertEquals(postgres.getPath().substring(1), postgresEnvironment.get("POSTGRES_DB"), "the database");
        assertEquals(secretRef("QUARKUS_DATASOURCE_PASSWORD", app), secretRef("POSTGRES_PASSWORD", postgresServer),
                "PostgreSQL's password is the one the application sends");
    }

    /**
     * The host is a Service of the rendering whose port reaches a StatefulSet's pods, and only the
     * application may connect; returns the StatefulSet's one container.
     */
    private static Container assertServedByStatefulSet(String host, int port) {
        Service service = rendering.named(Service.class, host);
        ServicePort servicePort = service.getSpec().getPorts().stream()
                .filter(candidate -> candidate.getPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("Service " + host + " has no port " + port));
        StatefulSet set = rendering.all(StatefulSet.class).stream()
                .filter(candidate -> selects(new LabelSelector(null, service.getSpec().getSelector()), candidate.getSpec().getTemplate().getMetadata().getLabels()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("Service " + host + " selects no StatefulSet's pods"));
        List<Container> containers = set.getSpec().getTemplate().getSpec().getContainers();
        int containerPort = portNumber(servicePort.getTargetPort(), containers);
        assertTrue(containers.stream().flatMap(c -> c.getPorts().stream()).anyMatch(p -> p.getContainerPort() == containerPort),
                "Service " + host + " sends to port " + containerPort + ", which no container of " + set.getMetadata().getName() + " opens");

        Map<String, String> labels = set.getSpec().getTemplate().getMetadata().getLabels();
        NetworkPolicy policy = rendering.all(NetworkPolicy.class).stream()
                .filter(candidate -> selects(candidate.getSpec().getPodSelector(), labels))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no NetworkPolicy guards " + set.getMetadata().getName()));
        Map<String, String> appLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        for (var rule : policy.getSpec().getIngress()) {
            for (NetworkPolicyPeer peer : rule.getFrom()) {
                assertTrue(selects(peer.getPodSelector(), appLabels) && peer.getNamespaceSelector() == null && peer.getIpBlock() == null,
                        "NetworkPolicy " + policy.getMetadata().getName() + " admits a peer that is not the application's pods: " + peer);
            }
        }
        assertTrue(policy.getSpec().getIngress().stream()
                .anyMatch(rule -> rule.getFrom().stream().anyMatch(peer -> selects(peer.getPodSelector(), appLabels))
                        && allowsPort(rule.getPorts(), "TCP", containerPort, containers)),
                "NetworkPolicy " + policy.getMetadata().getName() + " keeps the application from port " + containerPort);
        assertEquals(1, containers.size(), "containers of " + set.getMetadata().getName());
        return containers.getFirst();
    }

    @Test
    void prometheusScrapesTheMetricsEndpoint() {
        Map<String, String> annotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        assertEquals("true", annotations.get("prometheus.io/scrape"));
        assertEquals(String.valueOf(managementPort), annotations.get("prometheus.io/port"));
        assertEquals("/q/metrics", annotations.get("prometheus.io/path"));
    }

    @Test
    void eachReplicaIsNamedAfterItsPod() {
        EnvVar replicaId = app.getEnv().stream().filter(variable -> variable.getName().equals("TASKFENCE_REPLICA_ID"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("TASKFENCE_REPLICA_ID is not set"));
        assertEquals("metadata.name", replicaId.getValueFrom().getFieldRef().getFieldPath());
    }

    // ---- how Kubernetes reads the rendering

    /**
     * A container's environment as the kubelet builds it: envFrom first, env after and winning. Values
     * from Secrets and fields stand as placeholders; their names are what matters here.
     */
    private static Map<String, String> environmentOf(Container container) {
        Map<String, String> variables = new LinkedHashMap<>();
        for (EnvFromSource source : container.getEnvFrom()) {
            String prefix = Objects.requireNonNullElse(source.getPrefix(), "");
            if (source.getConfigMapRef() != null) {
                rendering.named(ConfigMap.class, source.getConfigMapRef().getName()).getData()
                        .forEach((key, value) -> variables.put(prefix + key, value));
            }
            if (source.getSecretRef() != null) {
                Optional.ofNullable(keysOf("Secret", source.getSecretRef().getName()))
                        .ifPresent(keys -> keys.forEach(key -> variables.put(prefix + key, "<secret>")));
            }
        }
        for (EnvVar variable : container.getEnv()) {
            variables.put(variable.getName(), variable.getValueFrom() == null ? variable.getValue() : "<from " + variable.getName() + ">");
        }
        return variables;
    }

    /** The keys of the ConfigMap or Secret (data and stringData) so named; null when the rendering has none. */
    private static Set<String> keysOf(String kind, String name) {
        return rendering.objects().stream()
                .filter(object -> object.getKind().equals(kind) && object.getMetadata().getName().equals(name))
                .findFirst()
                .map(object -> object instanceof Secret secret
                        ? Stream.concat(secret.getData().keySet().stream(), secret.getStringData().keySet().stream()).collect(Collectors.toSet())
                        : ((ConfigMap) object).getData().keySet())
                .orElse(null);
    }

    private static String secretRef(String variable, Container container) {
        SecretKeySelector ref = container.getEnv().stream()
                .filter(candidate -> candidate.getName().equals(variable) && candidate.getValueFrom() != null)
                .map(candidate -> candidate.getValueFrom().getSecretKeyRef())
                .filter(Objects::nonNull)
                .findFirst()
                .orElseThrow(() -> new AssertionError(container.getName() + " does not read " + variable + " from a Secret"));
        return ref.getName() + "/" + ref.getKey();
    }

    private static List<URI> redisHosts() {
        String hosts = environment.get("QUARKUS_REDIS_HOSTS");
        assertNotNull(hosts, "QUARKUS_REDIS_HOSTS is not set");
        return Stream.of(hosts.split(",")).map(String::trim).map(URI::create).toList();
    }

    private static URI postgresUrl() {
        String url = environment.get("QUARKUS_DATASOURCE_JDBC_URL");
        assertNotNull(url, "QUARKUS_DATASOURCE_JDBC_URL is not set");
        assertTrue(url.startsWith("jdbc:postgresql://"), url);
        return URI.create(url.substring("jdbc:".length()));
    }

    private static int portOr(URI uri, int standard) {
        return uri.getPort() == -1 ? standard : uri.getPort();
    }

    /**
     * The number a probe's, a Service's or a NetworkPolicy's port stands for among these containers: a
     * name is looked up as the kubelet and the endpoints controller do. A name no container declares
     * fails: such a probe never succeeds, such a Service never gets endpoints.
     */
    private static int portNumber(IntOrString port, List<Container> containers) {
        assertNotNull(port, "no port given");
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return containers.stream().flatMap(container -> container.getPorts().stream())
                .filter(declared -> port.getStrVal().equals(declared.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container declares a port named " + port.getStrVal()))
                .getContainerPort();
    }

    /** Whether a rule's ports admit this one; a rule naming no ports admits all. Names are the guarded pods' port names. */
    private static boolean allowsPort(List<NetworkPolicyPort> ports, String protocol, int port, List<Container> guarded) {
        return ports == null || ports.isEmpty() || ports.stream().anyMatch(candidate -> {
            if (!Objects.requireNonNullElse(candidate.getProtocol(), "TCP").equals(protocol)) {
                return false;
            }
            if (candidate.getPort() == null) {
                return true;
            }
            int from = portNumber(candidate.getPort(), guarded);
            return from <= port && port <= Objects.requireNonNullElse(candidate.getEndPort(), from);
        });
    }

    /** Whether a selector picks pods with these labels; an absent selector picks nothing here. */
    private static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        if (selector.getMatchExpressions() != null && !selector.getMatchExpressions().isEmpty()) {
            throw new AssertionError("matchExpressions are not checked here; use matchLabels: " + selector);
        }
        return selector.getMatchLabels() != null && labels != null && labels.entrySet().containsAll(selector.getMatchLabels().entrySet());
    }

    /** A container's securityContext wins over the pod's where both may say something. */
    private static <T> T either(T containerLevel, T podLevel) {
        return containerLevel != null ? containerLevel : podLevel;
    }
}

package io.taskfence.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
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
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.taskfence.TaskfenceConfig;
import io.taskfence.deploy.Rendering.Workload;

/**
 * Renders k8s/ with kubectl and checks what would break a rollout or weaken the pods: probes on the wrong
 * path or port, settings nobody reads, selectors that miss the pods (or catch others), a grace period
 * shorter than the drain, containers without limits or hardening.
 */
class KubernetesManifestsTest {

    static final Path PROJECT = Path.of(System.getProperty("basedir", "."));
    static final String APP = "taskfence";

    private static Rendering rendering;
    private static Deployment deployment;
    private static Container app;
    private static Map<String, String> environment;
    private static int httpPort;

    @BeforeAll
    static void render() {
        rendering = Rendering.of(PROJECT.resolve("k8s"));
        deployment = rendering.named(Deployment.class, APP);
        app = deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(container -> APP.equals(container.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the Deployment has no container named " + APP));
        environment = environmentOf(app);
        httpPort = ApplicationProperties.read(PROJECT.resolve("src/main/resources/application.properties")).httpPort(environment);
    }

    @Test
    void everyFieldIsOneTheKubernetesApiKnows() {
        for (HasMetadata object : rendering.objects()) {
            assertEquals(List.of(), UnknownFields.in(object),
                    object.getKind() + " " + object.getMetadata().getName() + " has fields the API server would refuse");
        }
    }

    @Test
    void probesAskTheHealthEndpointsOnTheApplicationsPort() {
        assertEquals(httpPort, PodPorts.resolve(new IntOrString("http"), List.of(app)),
                "the container port named http is the one the application listens on");
        assertProbe("startup", app.getStartupProbe(), "/q/health/started");
        assertProbe("liveness", app.getLivenessProbe(), "/q/health/live");
        assertProbe("readiness", app.getReadinessProbe(), "/q/health/ready");
    }

    private static void assertProbe(String kind, Probe probe, String path) {
        assertNotNull(probe, "the " + kind + " probe is missing");
        assertNotNull(probe.getHttpGet(), "the " + kind + " probe is not an HTTP GET");
        assertEquals(path, probe.getHttpGet().getPath(), "the " + kind + " probe's path");
        assertApplicationPort(probe.getHttpGet().getPort(), "the " + kind + " probe's port");
        assertTrue(probe.getHttpGet().getScheme() == null || probe.getHttpGet().getScheme().equals("HTTP"),
                "the " + kind + " probe speaks plain HTTP, as the application does");
    }

    /** The port is the container port that the application listens on, by name or by number. */
    private static void assertApplicationPort(IntOrString port, String what) {
        int resolved = PodPorts.resolve(port, List.of(app));
        assertEquals(httpPort, resolved, what);
        assertTrue(app.getPorts().stream().anyMatch(declared -> declared.getContainerPort() == resolved),
                what + ": the container declares no port " + resolved);
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
        KnownEnvNames known = KnownEnvNames.ofMapping(TaskfenceConfig.class)
                .and(KnownEnvNames.QUARKUS_KEYS_WE_USE)
                .and(KnownEnvNames.JVM_IMAGE);
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
        assertEquals(List.of(), known.unknownAmong(names), "environment variables that no setting reads");
    }

    @Test
    void everySecretAndConfigMapReferencedIsThereWithItsKeys() {
        List<String> missing = new ArrayList<>();
        for (Workload workload : rendering.workloads()) {
            for (Container container : containersOf(workload.template().getSpec())) {
                for (EnvFromSource source : Optional.ofNullable(container.getEnvFrom()).orElse(List.of())) {
                    if (source.getConfigMapRef() != null && !Boolean.TRUE.equals(source.getConfigMapRef().getOptional())
                            && configMapKeys(source.getConfigMapRef().getName()) == null) {
                        missing.add(workload.name() + ": ConfigMap " + source.getConfigMapRef().getName());
                    }
                    if (source.getSecretRef() != null && !Boolean.TRUE.equals(source.getSecretRef().getOptional())
                            && secretKeys(source.getSecretRef().getName()) == null) {
                        missing.add(workload.name() + ": Secret " + source.getSecretRef().getName());
                    }
                }
                for (EnvVar variable : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
                    EnvVarSource from = variable.getValueFrom();
                    if (from != null && from.getSecretKeyRef() != null && !Boolean.TRUE.equals(from.getSecretKeyRef().getOptional())) {
                        Set<String> keys = secretKeys(from.getSecretKeyRef().getName());
                        if (keys == null || !keys.contains(from.getSecretKeyRef().getKey())) {
                            missing.add(workload.name() + ": key " + from.getSecretKeyRef().getKey() + " of Secret " + from.getSecretKeyRef().getName());
                        }
                    }
                    if (from != null && from.getConfigMapKeyRef() != null && !Boolean.TRUE.equals(from.getConfigMapKeyRef().getOptional())) {
                        Set<String> keys = configMapKeys(from.getConfigMapKeyRef().getName());
                        if (keys == null || !keys.contains(from.getConfigMapKeyRef().getKey())) {
                            missing.add(workload.name() + ": key " + from.getConfigMapKeyRef().getKey() + " of ConfigMap " + from.getConfigMapKeyRef().getName());
                        }
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
            for (Container container : containersOf(workload.template().getSpec())) {
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
            for (Container container : containersOf(pod)) {
                String where = workload.name() + ", container " + container.getName() + ": ";
                ResourceRequirements resources = Optional.ofNullable(container.getResources()).orElseGet(ResourceRequirements::new);
                for (String resource : List.of("cpu", "memory")) {
                    if (resources.getRequests() == null || !resources.getRequests().containsKey(resource)) {
                        problems.add(where + "no " + resource + " request");
                    }
                    if (resources.getLimits() == null || !resources.getLimits().containsKey(resource)) {
                        problems.add(where + "no " + resource + " limit");
                    }
                }
                SecurityContext context = Optional.ofNullable(container.getSecurityContext()).orElseGet(SecurityContext::new);
                if (!Boolean.TRUE.equals(either(context.getRunAsNonRoot(), podContext.getRunAsNonRoot()))) {
                    problems.add(where + "runAsNonRoot is not true");
                }
                if (Long.valueOf(0).equals(either(context.getRunAsUser(), podContext.getRunAsUser()))) {
                    problems.add(where + "runs as user 0");
                }
                if (!Boolean.TRUE.equals(context.getReadOnlyRootFilesystem())) {
                    problems.add(where + "readOnlyRootFilesystem is not true");
                }
                if (!Boolean.FALSE.equals(context.getAllowPrivilegeEscalation())) {
                    problems.add(where + "allowPrivilegeEscalation is not false");
                }
                if (Boolean.TRUE.equals(context.getPrivileged())) {
                    problems.add(where + "privileged");
                }
                if (context.getCapabilities() == null || context.getCapabilities().getDrop() == null
                        || !context.getCapabilities().getDrop().contains("ALL")) {
                    problems.add(where + "capabilities do not drop ALL");
                }
                SeccompProfile seccomp = either(context.getSeccompProfile(), podContext.getSeccompProfile());
                if (seccomp == null || !"RuntimeDefault".equals(seccomp.getType())) {
                    problems.add(where + "no RuntimeDefault seccomp profile");
                }
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
        String drainTimeout = configMapValue("TASKFENCE_WORKER_DRAIN_TIMEOUT");
        assertNotNull(drainTimeout, "the ConfigMap sets TASKFENCE_WORKER_DRAIN_TIMEOUT explicitly, so the two stay side by side");
        Duration drain = ConfigDuration.parse(environment.get("TASKFENCE_WORKER_DRAIN_TIMEOUT"));
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
        Map<String, String> appLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        Map<String, Predicate<Map<String, String>>> selectors = new LinkedHashMap<>();
        selectors.put("Deployment selector", labels -> PodPorts.selects(deployment.getSpec().getSelector(), labels));
        selectors.put("Service", labels -> PodPorts.selects(rendering.named(Service.class, APP).getSpec().getSelector(), labels));
        selectors.put("PodDisruptionBudget", labels -> PodPorts.selects(rendering.named(PodDisruptionBudget.class, APP).getSpec().getSelector(), labels));
        selectors.put("NetworkPolicy", labels -> PodPorts.selects(rendering.named(NetworkPolicy.class, APP).getSpec().getPodSelector(), labels));
        List<TopologySpreadConstraint> spread = deployment.getSpec().getTemplate().getSpec().getTopologySpreadConstraints();
        for (TopologySpreadConstraint constraint : spread) {
            selectors.put("topology spread over " + constraint.getTopologyKey(), labels -> PodPorts.selects(constraint.getLabelSelector(), labels));
        }
        for (var selector : selectors.entrySet()) {
            assertTrue(selector.getValue().test(appLabels), "the " + selector.getKey() + " misses the application's pods");
            for (Workload other : rendering.workloads()) {
                if (!other.name().equals("Deployment " + APP)) {
                    assertFalse(selector.getValue().test(other.template().getMetadata().getLabels()),
                            "the " + selector.getKey() + " also picks the pods of " + other.name());
                }
            }
        }
        assertEquals(Set.of("kubernetes.io/hostname", "topology.kubernetes.io/zone"),
                spread.stream().map(TopologySpreadConstraint::getTopologyKey).collect(Collectors.toSet()),
                "replicas spread across nodes and zones");
    }

    @Test
    void eachStatefulSetSelectsOnlyItsOwnPods() {
        for (StatefulSet set : rendering.all(StatefulSet.class)) {
            for (Workload workload : rendering.workloads()) {
                boolean own = workload.name().equals("StatefulSet " + set.getMetadata().getName());
                assertEquals(own, PodPorts.selects(set.getSpec().getSelector(), workload.template().getMetadata().getLabels()),
                        "StatefulSet " + set.getMetadata().getName() + " against the pods of " + workload.name());
            }
        }
    }

    @Test
    void theNetworkPolicyLetsRequestsInAndRedisPostgresqlAndDnsOut() {
        NetworkPolicy policy = rendering.named(NetworkPolicy.class, APP);
        assertTrue(policy.getSpec().getIngress().stream().anyMatch(rule -> allowsPort(rule.getPorts(), "TCP", httpPort, List.of(app))),
                "no ingress rule lets requests reach port " + httpPort);
        List<List<NetworkPolicyPort>> egress = policy.getSpec().getEgress().stream().map(rule -> rule.getPorts()).toList();
        assertTrue(egress.stream().anyMatch(ports -> allowsPort(ports, "UDP", 53, List.of(app))), "DNS (53/UDP) is blocked");
        for (URI redis : redisHosts()) {
            assertTrue(egress.stream().anyMatch(ports -> allowsPort(ports, "TCP", portOr(redis, 6379), List.of(app))), "Redis at " + redis + " is blocked");
        }
        URI postgres = postgresUrl();
        assertTrue(egress.stream().anyMatch(ports -> allowsPort(ports, "TCP", portOr(postgres, 5432), List.of(app))), "PostgreSQL at " + postgres + " is blocked");
    }

    @Test
    void theDemoRedisAndPostgresqlAnswerWhereTheConfigurationPoints() {
        assumeFalse(rendering.all(StatefulSet.class).isEmpty(), "k8s/ leaves the demo component out: Redis and PostgreSQL are your own");
        URI redis = redisHosts().getFirst();
        StatefulSet redisSet = assertServedByStatefulSet(redis.getHost(), portOr(redis, 6379));
        assertEquals(secretRef("QUARKUS_REDIS_PASSWORD", app), secretRef("REDIS_PASSWORD", onlyContainer(redisSet)),
                "Redis's password is the one the application sends");

        URI postgres = postgresUrl();
        StatefulSet postgresSet = assertServedByStatefulSet(postgres.getHost(), portOr(postgres, 5432));
        Map<String, String> postgresEnvironment = environmentOf(onlyContainer(postgresSet));
        assertEquals(environment.get("QUARKUS_DATASOURCE_USERNAME"), postgresEnvironment.get("POSTGRES_USER"), "the database user");
        assertEquals(postgres.getPath().substring(1), postgresEnvironment.get("POSTGRES_DB"), "the database");
        assertEquals(secretRef("QUARKUS_DATASOURCE_PASSWORD", app), secretRef("POSTGRES_PASSWORD", onlyContainer(postgresSet)),
                "PostgreSQL's password is the one the application sends");
    }

    /** The host is a Service of the rendering whose port reaches a StatefulSet's pods, and only the application may connect. */
    private static StatefulSet assertServedByStatefulSet(String host, int port) {
        Service service = rendering.named(Service.class, host);
        ServicePort servicePort = service.getSpec().getPorts().stream()
                .filter(candidate -> candidate.getPort() == port)
                .findFirst()
                .orElseThrow(() -> new AssertionError("Service " + host + " has no port " + port));
        StatefulSet set = rendering.all(StatefulSet.class).stream()
                .filter(candidate -> PodPorts.selects(service.getSpec().getSelector(), candidate.getSpec().getTemplate().getMetadata().getLabels()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("Service " + host + " selects no StatefulSet's pods"));
        List<Container> containers = set.getSpec().getTemplate().getSpec().getContainers();
        int containerPort = PodPorts.resolve(servicePort.getTargetPort(), containers);
        assertTrue(containers.stream().flatMap(c -> c.getPorts().stream()).anyMatch(p -> p.getContainerPort() == containerPort),
                "Service " + host + " sends to port " + containerPort + ", which no container of " + set.getMetadata().getName() + " opens");

        Map<String, String> labels = set.getSpec().getTemplate().getMetadata().getLabels();
        NetworkPolicy policy = rendering.all(NetworkPolicy.class).stream()
                .filter(candidate -> PodPorts.selects(candidate.getSpec().getPodSelector(), labels))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no NetworkPolicy guards " + set.getMetadata().getName()));
        Map<String, String> appLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
            for (NetworkPolicyPeer peer : rule.getFrom()) {
                assertTrue(PodPorts.selects(peer.getPodSelector(), appLabels) && peer.getNamespaceSelector() == null && peer.getIpBlock() == null,
                        "NetworkPolicy " + policy.getMetadata().getName() + " admits a peer that is not the application's pods: " + peer);
            }
        }
        assertTrue(policy.getSpec().getIngress().stream()
                .anyMatch(rule -> rule.getFrom().stream().anyMatch(peer -> PodPorts.selects(peer.getPodSelector(), appLabels))
                        && allowsPort(rule.getPorts(), "TCP", containerPort, containers)),
                "NetworkPolicy " + policy.getMetadata().getName() + " keeps the application from port " + containerPort);
        return set;
    }

    @Test
    void prometheusScrapesTheMetricsEndpoint() {
        Map<String, String> annotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        assertEquals("true", annotations.get("prometheus.io/scrape"));
        assertEquals(String.valueOf(httpPort), annotations.get("prometheus.io/port"));
        assertEquals("/q/metrics", annotations.get("prometheus.io/path"));
    }

    @Test
    void eachReplicaIsNamedAfterItsPod() {
        EnvVar replicaId = app.getEnv().stream().filter(variable -> variable.getName().equals("TASKFENCE_REPLICA_ID"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("TASKFENCE_REPLICA_ID is not set"));
        assertEquals("metadata.name", replicaId.getValueFrom().getFieldRef().getFieldPath());
    }

    // ---- reading the rendering

    static List<Container> containersOf(PodSpec pod) {
        return Stream.concat(Optional.ofNullable(pod.getInitContainers()).orElse(List.of()).stream(), pod.getContainers().stream()).toList();
    }

    /**
     * A container's environment as the kubelet builds it: envFrom first, env after and winning. Values
     * from Secrets and fields stand as placeholders; their names are what matters here.
     */
    private static Map<String, String> environmentOf(Container container) {
        Map<String, String> variables = new LinkedHashMap<>();
        for (EnvFromSource source : Optional.ofNullable(container.getEnvFrom()).orElse(List.of())) {
            String prefix = Objects.requireNonNullElse(source.getPrefix(), "");
            if (source.getConfigMapRef() != null) {
                rendering.named(ConfigMap.class, source.getConfigMapRef().getName()).getData()
                        .forEach((key, value) -> variables.put(prefix + key, value));
            }
            if (source.getSecretRef() != null) {
                Set<String> keys = secretKeys(source.getSecretRef().getName());
                if (keys != null) {
                    keys.forEach(key -> variables.put(prefix + key, "<secret>"));
                }
            }
        }
        for (EnvVar variable : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
            variables.put(variable.getName(), variable.getValueFrom() == null ? variable.getValue() : "<from " + variable.getName() + ">");
        }
        return variables;
    }

    private static String configMapValue(String key) {
        return app.getEnvFrom().stream()
                .filter(source -> source.getConfigMapRef() != null)
                .map(source -> rendering.named(ConfigMap.class, source.getConfigMapRef().getName()).getData().get(key))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }

    private static Set<String> configMapKeys(String name) {
        return rendering.all(ConfigMap.class).stream().filter(c -> c.getMetadata().getName().equals(name))
                .map(c -> c.getData().keySet()).findFirst().orElse(null);
    }

    /** The keys of the Secret so named, from data and stringData; null when the rendering has no such Secret. */
    private static Set<String> secretKeys(String name) {
        return rendering.all(Secret.class).stream().filter(s -> s.getMetadata().getName().equals(name))
                .map(s -> {
                    Set<String> keys = new HashSet<>();
                    Optional.ofNullable(s.getData()).ifPresent(data -> keys.addAll(data.keySet()));
                    Optional.ofNullable(s.getStringData()).ifPresent(data -> keys.addAll(data.keySet()));
                    return keys;
                })
                .findFirst().orElse(null);
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

    private static Container onlyContainer(StatefulSet set) {
        List<Container> containers = set.getSpec().getTemplate().getSpec().getContainers();
        assertEquals(1, containers.size(), "containers of " + set.getMetadata().getName());
        return containers.getFirst();
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

    /** Whether a rule's ports admit this one; a rule naming no ports admits all. Names are the guarded pods' port names. */
    private static boolean allowsPort(List<NetworkPolicyPort> ports, String protocol, int port, List<Container> guarded) {
        if (ports == null || ports.isEmpty()) {
            return true;
        }
        return ports.stream().anyMatch(candidate -> Objects.requireNonNullElse(candidate.getProtocol(), "TCP").equals(protocol)
                && (candidate.getPort() == null || coversPort(candidate, port, guarded)));
    }

    private static boolean coversPort(NetworkPolicyPort candidate, int port, List<Container> guarded) {
        int from = PodPorts.resolve(candidate.getPort(), guarded);
        int to = candidate.getEndPort() != null ? candidate.getEndPort() : from;
        return from <= port && port <= to;
    }

    private static <T> T either(T containerLevel, T podLevel) {
        return containerLevel != null ? containerLevel : podLevel;
    }
}

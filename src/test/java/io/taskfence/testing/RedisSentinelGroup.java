package io.taskfence.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Redis primary, one replica and three sentinels of a test's own ({@code redis-server}, the sentinels in its
 * {@code --sentinel} mode), on free ports with their files in one directory: quorum 2, a primary that does not
 * answer for 1 s is down, so that a failover completes within seconds. A sentinel may fail the same primary over
 * again only after twice the failover time-out, but the promoted server is another primary to it: once the old
 * one follows it ({@link #rejoin} after a kill; by itself after a pause) and the sentinels count it fit
 * ({@link #awaitReplicaFit}), the group can fail over again. The first replica reaches the primary through
 * a {@link TcpForwarder}, so that a test can {@link #stallReplication() hold back replication} and have the
 * sentinels promote a replica that lacks the last writes, as a real failover can.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    public static final String MASTER_NAME = "taskfence";
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final List<StandaloneRedis> servers = new ArrayList<>();
    private final List<Integer> sentinelPorts = new ArrayList<>();
    private final List<Process> sentinels = new ArrayList<>();
    private TcpForwarder replicationLink;

    private RedisSentinelGroup(Path dir) {
        this.dir = dir;
    }

    /** Starts the servers and the sentinels and waits until every sentinel knows the replica and the others. */
    public static RedisSentinelGroup start(Path dir) throws IOException, InterruptedException {
        RedisSentinelGroup group = new RedisSentinelGroup(dir);
        try {
            group.startServers();
            for (int i = 0; i < 3; i++) {
                group.startSentinel();
            }
            group.awaitSettled();
            return group;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            group.close();
            throw e;
        }
    }

    private void startServers() throws IOException, InterruptedException {
        StandaloneRedis primary = StandaloneRedis.start(PackagedService.freePort(), dir);
        servers.add(primary);
        replicationLink = TcpForwarder.open(PackagedService.freePort(), primary.port());
        int linkPort = replicationLink.listenPort();
        StandaloneRedis replica = StandaloneRedis.start(PackagedService.freePort(), dir,
                List.of("--replicaof", "127.0.0.1", Integer.toString(linkPort)));
        servers.add(replica);
        await("the replica's link to the primary is up").atMost(SETTLE_TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> replica.replication("master_link_status"), "up"::equals);
    }

    private void startSentinel() throws IOException {
        int port = PackagedService.freePort();
        Path config = dir.resolve("sentinel-" + port + ".conf");
        // Sentinels rewrite their file with what they learn, so each has one of its own.
        Files.writeString(config, String.join("\n",
                "port " + port,
                "bind 127.0.0.1",
                "dir " + dir,
                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + servers.get(0).port() + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                // Also how long a sentinel leaves a replica that follows another address than the primary's (this
                // one follows the replication link): long enough for any test.
                "sentinel failover-timeout " + MASTER_NAME + " 180000",
                "sentinel parallel-syncs " + MASTER_NAME + " 1", ""));
        Process sentinel = new ProcessBuilder("redis-server", config.toString(), "--sentinel").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("sentinel-" + port + ".log").toFile()))
                .start();
        sentinels.add(sentinel);
        sentinelPorts.add(port);
    }

    /** Every sentinel has found the replica and the two other sentinels, and together they have a quorum. */
    private void awaitSettled() {
        for (int port : sentinelPorts) {
            await("sentinel " + port + " knows the replica and the other sentinels (see " + dir + ")")
                    .atMost(SETTLE_TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .ignoreException(IllegalStateException.class)
                    .until(() -> {
                        Map<String, String> master = sentinel(port, "sentinel", "master", MASTER_NAME);
                        return "1".equals(master.get("num-slaves")) && "2".equals(master.get("num-other-sentinels"))
                                && sentinelCli(port, "sentinel", "ckquorum", MASTER_NAME).startsWith("OK");
                    });
        }
    }

    /** {@code redis://} addresses of the sentinels, comma-separated, as {@code quarkus.redis.hosts} takes them. */
    public String hosts() {
        return sentinelPorts.stream().map(port -> "redis://127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    /** The server the sentinels name as primary now. */
    public StandaloneRedis primary() throws IOException, InterruptedException {
        String[] address = sentinelCli(sentinelPorts.get(0), "sentinel", "get-master-addr-by-name", MASTER_NAME)
                .split("\\R");
        int port = Integer.parseInt(address[1].trim());
        return servers.stream().filter(s -> s.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("the sentinels name an unknown primary on " + port));
    }

    /** The server that is not {@code server}. */
    public StandaloneRedis other(StandaloneRedis server) {
        return servers.get(0) == server ? servers.get(1) : servers.get(0);
    }

    /**
     * Waits until every sentinel names {@code candidate} as the primary and it says it is one; fails after
     * {@code atMost}.
     */
    public void awaitPromotion(StandaloneRedis candidate, Duration atMost) {
        await(candidate.port() + " promoted to primary (see " + dir + ")").atMost(atMost)
                .pollInterval(Duration.ofMillis(100)).ignoreException(IllegalStateException.class)
                .until(() -> {
                    for (int port : sentinelPorts) {
                        String named = sentinelCli(port, "sentinel", "get-master-addr-by-name", MASTER_NAME);
                        if (!named.endsWith(Integer.toString(candidate.port()))) {
                            return false;
                        }
                    }
                    return "master".equals(candidate.replication("role"));
                });
    }

    /**
     * Starts a server that was killed ({@link StandaloneRedis#close()}) again on its port, as a replica of the
     * primary the sentinels name now, as an operator brings a failed primary back.
     *
     * @return the new server, which takes the old one's place in the group
     */
    public StandaloneRedis rejoin(StandaloneRedis killed) throws IOException, InterruptedException {
        int index = servers.indexOf(killed);
        if (index < 0) {
            throw new IllegalArgumentException("redis-server on " + killed.port() + " is not one of the group's");
        }
        StandaloneRedis primary = primary();
        if (primary == killed) {
            throw new IllegalStateException("the sentinels still name " + killed.port() + " the primary");
        }
        StandaloneRedis rejoined = StandaloneRedis.start(killed.port(), dir,
                List.of("--replicaof", "127.0.0.1", Integer.toString(primary.port())));
        servers.set(index, rejoined);
        return rejoined;
    }

    /**
     * Waits until the server that is not the primary replicates from it and every sentinel counts it as a
     * replica in good standing (flags {@code slave} only, link ok): the sentinels can then promote it.
     */
    public void awaitReplicaFit(Duration atMost) {
        await("a replica the sentinels could promote (see " + dir + ")").atMost(atMost)
                .pollInterval(Duration.ofMillis(200)).ignoreException(IllegalStateException.class)
                .until(() -> {
                    StandaloneRedis primary = primary();
                    StandaloneRedis replica = other(primary);
                    // Not its master_port: the first replica follows the primary through the replication link.
                    if (!"slave".equals(replica.replication("role"))
                            || !"up".equals(replica.replication("master_link_status"))) {
                        return false;
                    }
                    for (int port : sentinelPorts) {
                        if (!fitReplica(sentinelCli(port, "sentinel", "replicas", MASTER_NAME), replica.port())) {
                            return false;
                        }
                    }
                    return true;
                });
    }

    /** Whether {@code SENTINEL REPLICAS} output (name, value, name, value... per replica) lists the port as fit. */
    private static boolean fitReplica(String replicas, int port) {
        String[] lines = replicas.split("\\R");
        for (int start = 0; start < lines.length; ) {
            Map<String, String> fields = new HashMap<>();
            int i = start;
            // each replica's fields begin with "name"
            do {
                if (i + 1 < lines.length) {
                    fields.put(lines[i].trim(), lines[i + 1].trim());
                }
                i += 2;
            } while (i < lines.length && !"name".equals(lines[i].trim()));
            if (Integer.toString(port).equals(fields.get("port"))) {
                return "slave".equals(fields.get("flags")) && "ok".equals(fields.get("master-link-status"));
            }
            start = i;
        }
        return false;
    }

    /**
     * Holds back replication from the first primary to the replica: the link stays open, so the sentinels still
     * count the replica as fit to promote, but it receives no more writes.
     */
    public void stallReplication() {
        replicationLink.stall();
    }

    /** Lets the replication link pass bytes again; what was held back is dropped with its connection. */
    public void resumeReplication() {
        replicationLink.resume();
    }

    private static Map<String, String> sentinel(int port, String... command) throws IOException, InterruptedException {
        String[] lines = sentinelCli(port, command).split("\\R");
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < lines.length; i += 2) {
            fields.put(lines[i].trim(), lines[i + 1].trim());
        }
        return fields;
    }

    private static String sentinelCli(int port, String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        line.addAll(List.of(command));
        Process cli = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(cli.getInputStream().readAllBytes()).trim();
        if (!cli.waitFor(10, TimeUnit.SECONDS) || cli.exitValue() != 0) {
            throw new IllegalStateException("redis-cli -p " + port + " " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /** Stops the sentinels first (so that they start no failover), then the servers and the link (SIGKILL). */
    @Override
    public void close() throws InterruptedException {
        for (Process sentinel : sentinels) {
            sentinel.destroyForcibly();
        }
        for (Process sentinel : sentinels) {
            sentinel.waitFor(10, TimeUnit.SECONDS);
        }
        for (StandaloneRedis server : servers) {
            try {
                server.signal("CONT"); // a test that failed while one was stopped
            } catch (IOException | RuntimeException alreadyGone) {
                // killed by the test
            }
            server.close();
        }
        if (replicationLink != null) {
            replicationLink.close();
        }
    }
}

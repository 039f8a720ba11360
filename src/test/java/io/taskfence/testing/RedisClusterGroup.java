package io.taskfence.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of a test's own: three masters ({@code redis-server --cluster-enabled yes}, no replicas, nothing
 * kept on disk but each node's cluster file) on free ports, their 16384 slots split evenly by
 * {@code redis-cli --cluster create}. A node also listens on its port + 10000 (the cluster bus), so both must be free.
 */
public final class RedisClusterGroup implements AutoCloseable {

    private static final int MASTERS = 3;
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    /** The bus port is the node's port + 10000, so nodes are placed where that stays a valid port. */
    private static final int LOWEST_PORT = 20_000;
    private static final int HIGHEST_PORT = 55_000;
    private static final int BUS_OFFSET = 10_000;

    /** A node's share of the slots: {@code first} to {@code last}, both included. */
    public record SlotRange(int first, int last, StandaloneRedis node) {
        boolean holds(int slot) {
            return first <= slot && slot <= last;
        }
    }

    private final Path dir;
    private final List<StandaloneRedis> nodes = new ArrayList<>();

    private RedisClusterGroup(Path dir) {
        this.dir = dir;
    }

    /** Starts the masters, joins them into one cluster and waits until every node says its state is ok. */
    public static RedisClusterGroup start(Path dir) throws IOException, InterruptedException {
        RedisClusterGroup group = new RedisClusterGroup(dir);
        try {
            for (int i = 0; i < MASTERS; i++) {
                int port = freePortWithBus(group.nodes);
                group.nodes.add(StandaloneRedis.start(port, dir, List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", group.nodesFile(port).toString(),
                        "--cluster-node-timeout", "2000")));
            }
            group.create();
            group.awaitOk();
            return group;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            group.close();
            throw e;
        }
    }

    private Path nodesFile(int port) {
        return dir.resolve("nodes-" + port + ".conf");
    }

    private void create() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (StandaloneRedis node : nodes) {
            command.add("127.0.0.1:" + node.port());
        }
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(create.getInputStream().readAllBytes());
        if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }

    /** Every node has met the others and serves all slots: {@code cluster_state:ok}. */
    private void awaitOk() {
        for (StandaloneRedis node : nodes) {
            await("cluster node " + node.port() + " says cluster_state:ok (see " + dir + ")").atMost(SETTLE_TIMEOUT)
                    .pollInterval(Duration.ofMillis(100)).ignoreException(IllegalStateException.class)
                    .until(() -> node.cli("cluster", "info").lines().anyMatch("cluster_state:ok"::equals));
        }
    }

    /** {@code redis://} addresses of the masters, comma-separated, as {@code quarkus.redis.hosts} takes them. */
    public String hosts() {
        return nodes.stream().map(StandaloneRedis::url).collect(Collectors.joining(","));
    }

    /** The masters; {@link StandaloneRedis#cli} on one runs commands on that node alone (no redirects). */
    public List<StandaloneRedis> nodes() {
        return List.copyOf(nodes);
    }

    /** Runs a command with {@code redis-cli -c}, which follows MOVED redirects to the node owning the key. */
    public String cli(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of("redis-cli", "-c", "-h", "127.0.0.1", "-p",
                Integer.toString(nodes.get(0).port())));
        line.addAll(List.of(command));
        Process cli = new ProcessBuilder(line).redirectErrorStream(true).start();
        String out = new String(cli.getInputStream().readAllBytes()).trim();
        if (!cli.waitFor(10, TimeUnit.SECONDS) || cli.exitValue() != 0) {
            throw new IllegalStateException("redis-cli -c " + String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /** The key's hash slot as Redis computes it ({@code CLUSTER KEYSLOT}). */
    public int slotOf(String key) throws IOException, InterruptedException {
        return Integer.parseInt(nodes.get(0).cli("cluster", "keyslot", key));
    }

    /** The master that serves {@code slot}, by the cluster's own table ({@link #slotRanges()}). */
    public StandaloneRedis nodeServing(int slot) throws IOException, InterruptedException {
        return slotRanges().stream().filter(range -> range.holds(slot)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node serves slot " + slot)).node();
    }

    /** Each node's slot ranges, as the node itself reports them (its {@code myself} line of {@code CLUSTER NODES}). */
    public List<SlotRange> slotRanges() throws IOException, InterruptedException {
        List<SlotRange> ranges = new ArrayList<>();
        for (StandaloneRedis node : nodes) {
            for (String line : node.cli("cluster", "nodes").split("\\R")) {
                String[] fields = line.trim().split(" ");
                if (fields.length < 3 || !fields[2].contains("myself")) {
                    continue;
                }
                for (int i = 8; i < fields.length; i++) {
                    if (fields[i].startsWith("[")) {
                        continue; // a slot being migrated: none here
                    }
                    String[] bounds = fields[i].split("-");
                    int first = Integer.parseInt(bounds[0]);
                    ranges.add(new SlotRange(first, bounds.length == 2 ? Integer.parseInt(bounds[1]) : first, node));
                }
            }
        }
        return ranges;
    }

    /** The keys a node holds itself ({@code KEYS} on that node only: the test's Redis holds few keys). */
    public static List<String> keysOn(StandaloneRedis node, String pattern) throws IOException, InterruptedException {
        String out = node.cli("keys", pattern);
        return out.isEmpty() ? List.of() : out.lines().map(String::trim).toList();
    }

    /**
     * A port where both it and its cluster bus port (+ 10000) can be bound now, and that none of {@code taken} uses;
     * the ephemeral range a free-port probe returns would often put the bus above 65535.
     */
    private static int freePortWithBus(List<StandaloneRedis> taken) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST_PORT, HIGHEST_PORT - BUS_OFFSET);
            boolean clash = taken.stream().anyMatch(node -> Math.abs(node.port() - port) <= 1
                    || Math.abs(node.port() + BUS_OFFSET - port) <= 1 || Math.abs(node.port() - BUS_OFFSET - port) <= 1);
            if (!clash && bindable(port) && bindable(port + BUS_OFFSET)) {
                return port;
            }
        }
        throw new IOException("no free port pair (port, port + " + BUS_OFFSET + ") found below " + HIGHEST_PORT);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    /** Stops every node (SIGKILL) and deletes their cluster files, which would make a new node on the port rejoin. */
    @Override
    public void close() throws InterruptedException {
        for (StandaloneRedis node : nodes) {
            node.close();
            try {
                Files.deleteIfExists(nodesFile(node.port()));
            } catch (IOException e) {
                // left in the test's own directory under target/
            }
        }
    }
}

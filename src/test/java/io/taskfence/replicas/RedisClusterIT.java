package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertOneDispatcherAtATime;
import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.awaitTrue;
import static io.taskfence.replicas.ClusterChecks.awaitValue;
import static io.taskfence.replicas.ClusterChecks.count;
import static io.taskfence.replicas.ClusterChecks.countBy;
import static io.taskfence.replicas.ClusterChecks.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.RedisClusterGroup;
import io.taskfence.testing.ReplicaCluster;
import io.taskfence.testing.StandaloneRedis;

/**
 * Three replicas configured the Quarkus way for Redis Cluster ({@code quarkus.redis.client-type=cluster}, the masters
 * as seeds) against three masters of the test's own. Every script touches keys of one hash tag, so it runs in
 * one slot; the locks' keys live where their slots say, on more than one node; pub/sub crosses nodes (a lock's
 * release is heard on a node that serves none of its keys, and a cancel stops a running handler at once); and the
 * replica scenario holds as on one Redis: every task runs once, on every replica, under one dispatcher at a time.
 */
class RedisClusterIT {

    private static final List<String> LOCKS = List.of("dispatch", "recovery", "schedules", "retention");
    private static final int NOOPS = 1000;
    private static final int FLAKY = 10;

    private static final Map<String, String> SETTINGS = Map.of(
            "TASKFENCE_DISPATCH_BATCH_SIZE", "100",
            // Heartbeats every 20 s: a cancelled handler that stops within seconds was stopped by the cancel signal.
            "TASKFENCE_WORKER_LEASE", "60s");

    @Test
    void replicasOnAThreeMasterClusterRunEveryTaskOnceWithScriptsInOneSlotAndPubSubAcrossNodes() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.startWithRedisCluster(3, SETTINGS)) {
            RedisClusterGroup redis = cluster.redisCluster();

            // The keys each script touches share a hash tag, so Redis puts them in one slot.
            for (String lock : LOCKS) {
                assertEquals(redis.slotOf(cluster.key("lock:{" + lock + "}")),
                        redis.slotOf(cluster.key("fence:{" + lock + "}")), "the lock " + lock + " and its counter's slots");
            }
            assertEquals(redis.slotOf(cluster.key("lock:{dispatch}")), redis.slotOf(cluster.key("queue:{dispatch}")),
                    "the dispatch lock's and the stream's slots (push.lua reads the one and writes the other)");

            // Every replica's workers subscribe to cancels at start; in a cluster each subscription is on one node.
            awaitTrue("each replica subscribed to the cancel channel", Duration.ofSeconds(20),
                    () -> subscribers(redis, cluster.key("cancelled")) == 3);
            long counterBefore = counter(cluster, "dispatch");

            String lockReleased = cluster.key("lock-released");
            StandaloneRedis away = nodeServingNone(redis, cluster.key("fence:{dispatch}"));
            try (ChannelListener releases = ChannelListener.open(away, lockReleased)) {
                runningSleepIsCancelledAtOnce(cluster);

                List<UUID> noops = submit(cluster, cluster.replicas(), NOOPS,
                        i -> "{\"type\":\"noop\",\"payload\":{\"n\":" + i + "}}");
                List<UUID> flaky = submit(cluster, cluster.replicas(), FLAKY,
                        i -> "{\"type\":\"flaky\",\"payload\":{\"failTimes\":2},\"maxAttempts\":5}");
                awaitStatus(cluster, noops, "SUCCEEDED", Duration.ofSeconds(90));
                awaitStatus(cluster, flaky, "SUCCEEDED", Duration.ofSeconds(30));

                // release.lua publishes on the node of the lock's slot; the cluster bus carries it to every node.
                awaitTrue("a node serving none of the dispatch lock's keys hears its release", Duration.ofSeconds(10),
                        () -> releases.heard("dispatch"));
                assertTrue(subscribers(redis, lockReleased) >= 1, "replicas waiting for a lock subscribe to its release");

                assertEquals(Map.of(1, (long) NOOPS), countBy(cluster, "attempt", noops), "attempts per noop task");
                assertEquals(Map.of(1, (long) NOOPS), countBy(cluster, "enqueues", noops), "enqueues per noop task");
                assertEquals(Map.of(3, (long) FLAKY), countBy(cluster, "attempt", flaky), "attempts per flaky task");
                Set<String> ranOn = replicasThatRan(cluster);
                assertEquals(Set.of("replica-0", "replica-1", "replica-2"), ranOn, "the replicas that ran tasks");
                Set<String> dispatchers = assertOneDispatcherAtATime(cluster,
                        count(cluster, "select sum(enqueues) from tasks"));
                assertTransitionsAreEdges(cluster);

                long counterAfter = counter(cluster, "dispatch");
                assertTrue(counterAfter > counterBefore, "the dispatch token counter rose from " + counterBefore
                        + " to " + counterAfter);
                Map<String, List<String>> keysByNode = keysWhereTheirSlotsSay(cluster, redis);
                for (String lock : LOCKS) {
                    // The fence first: a run may take a token and write it between the two reads.
                    long fence = count(cluster, "select coalesce(max(token), 0) from fences where name = ?", lock);
                    long counter = counter(cluster, lock);
                    assertTrue(counter >= fence, "the " + lock + " counter " + counter + " is at least PostgreSQL's fence "
                            + fence);
                }
                for (PackagedService replica : cluster.replicas()) {
                    String output = Files.readString(replica.log());
                    assertFalse(output.contains("CROSSSLOT"), replica.id() + " logged a cross-slot refusal");
                    assertFalse(output.contains("\"level\":\"ERROR\""), replica.id() + " logged an error; see "
                            + replica.log());
                    assertTrue(replica.process().isAlive(), replica.id() + " is still the process it was");
                }
                System.out.printf("%s: tasks ran on %s; dispatched by %s; dispatch counter %d -> %d; keys by node %s%n",
                        cluster, ranOn, dispatchers, counterBefore, counterAfter, keysByNode);
            }
        }
    }

    /**
     * A sleep task is cancelled through another replica than the one running it; that one hears of it on the cancel
     * channel and interrupts the handler long before its next heartbeat (a third of the 60 s lease after the claim)
     * would have found the claim gone (10 s allowed: a busy machine may be slow to start the check).
     */
    private static void runningSleepIsCancelledAtOnce(ReplicaCluster cluster) throws Exception {
        UUID sleeper = submit(cluster, cluster.replicas().subList(0, 1), 1,
                i -> "{\"type\":\"sleep\",\"payload\":{\"ms\":60000}}").getFirst();
        String worker = awaitValue("the sleep task is running", Duration.ofSeconds(20), () -> {
            String claimedBy = workerOf(cluster, sleeper);
            return claimedBy == null ? null : claimedBy.substring(0, claimedBy.indexOf('/'));
        });
        PackagedService running = cluster.replica(worker);
        PackagedService other = cluster.replicas().stream().filter(r -> r != running).findFirst().orElseThrow();
        assertEquals(200, cluster.post(other, "/api/v1/tasks/" + sleeper + "/cancel", "").statusCode(),
                "cancel through " + other.id());
        awaitTrue(running.id() + " interrupts the cancelled handler before a heartbeat could", Duration.ofSeconds(10),
                () -> running.output().contains("task " + sleeper + " attempt 1: the processing lease was taken away"));
        assertEquals(Map.of("CANCELLED", 1L), countBy(cluster, "status", List.of(sleeper)));
    }

    private static String workerOf(ReplicaCluster cluster, UUID task) throws Exception {
        try (Connection db = cluster.database();
                PreparedStatement query = db.prepareStatement("select worker from tasks where id = ? and status = 'PROCESSING'")) {
            query.setObject(1, task);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    private static Set<String> replicasThatRan(ReplicaCluster cluster) throws Exception {
        Set<String> names = new HashSet<>();
        try (Connection db = cluster.database();
                PreparedStatement query = db.prepareStatement("select distinct split_part(worker, '/', 1) from tasks "
                        + "where status = 'SUCCEEDED'");
                ResultSet row = query.executeQuery()) {
            while (row.next()) {
                names.add(row.getString(1));
            }
        }
        return names;
    }

    /** A lock's token counter, read from whichever node owns it. */
    private static long counter(ReplicaCluster cluster, String lock) throws Exception {
        String value = cluster.redis("get", cluster.key("fence:{" + lock + "}"));
        return value.isEmpty() ? 0 : Long.parseLong(value);
    }

    /** Subscribers to {@code channel} on all nodes together: PUBSUB NUMSUB counts a node's own clients only. */
    private static long subscribers(RedisClusterGroup redis, String channel) throws Exception {
        long total = 0;
        for (StandaloneRedis node : redis.nodes()) {
            total += Long.parseLong(node.cli("pubsub", "numsub", channel).lines().toList().getLast().trim());
        }
        return total;
    }

    /** A master that does not serve {@code key}'s slot. */
    private static StandaloneRedis nodeServingNone(RedisClusterGroup redis, String key) throws Exception {
        StandaloneRedis owner = redis.nodeServing(redis.slotOf(key));
        return redis.nodes().stream().filter(node -> node != owner).findFirst().orElseThrow();
    }

    /**
     * Lists each node's own keys and checks that every one is on the node serving its slot, that every lock's
     * counter and the stream are there, and that they are spread over more than one node.
     *
     * @return the keys, by node port
     */
    private static Map<String, List<String>> keysWhereTheirSlotsSay(ReplicaCluster cluster, RedisClusterGroup redis)
            throws Exception {
        Map<String, List<String>> byNode = new HashMap<>();
        Set<String> all = new HashSet<>();
        for (StandaloneRedis node : redis.nodes()) {
            List<String> keys = RedisClusterGroup.keysOn(node, cluster.key("*"));
            for (String key : keys) {
                assertEquals(redis.nodeServing(redis.slotOf(key)).port(), node.port(),
                        key + " (slot " + redis.slotOf(key) + ") is on the node serving its slot");
            }
            if (!keys.isEmpty()) {
                byNode.put(Integer.toString(node.port()), keys);
            }
            all.addAll(keys);
        }
        List<String> expected = new ArrayList<>(LOCKS.stream().map(lock -> cluster.key("fence:{" + lock + "}")).toList());
        expected.add(cluster.key("queue:{dispatch}"));
        assertTrue(all.containsAll(expected), "the counters and the stream exist: " + byNode);
        assertTrue(byNode.size() >= 2, "the service's keys are spread over the nodes: " + byNode);
        return byNode;
    }

    /** {@code redis-cli SUBSCRIBE} on one node, in a process of its own; remembers the messages it printed. */
    private static final class ChannelListener implements AutoCloseable {

        private final Process subscriber;
        private final CompletableFuture<Void> reader;
        private final Set<String> lines = java.util.concurrent.ConcurrentHashMap.newKeySet();

        private ChannelListener(Process subscriber) {
            this.subscriber = subscriber;
            this.reader = CompletableFuture.runAsync(this::read);
        }

        static ChannelListener open(StandaloneRedis node, String channel) throws IOException {
            Process subscriber = new ProcessBuilder("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(node.port()),
                    "subscribe", channel).redirectErrorStream(true).start();
            return new ChannelListener(subscriber);
        }

        private void read() {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(subscriber.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line.trim());
                }
            } catch (IOException closed) {
                // the process was stopped
            }
        }

        boolean heard(String message) {
            return lines.contains(message);
        }

        @Override
        public void close() throws InterruptedException {
            subscriber.destroyForcibly();
            subscriber.waitFor(10, TimeUnit.SECONDS);
            reader.orTimeout(10, TimeUnit.SECONDS).exceptionally(ignored -> null).join();
        }
    }
}

package io.taskfence.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.RedisSentinelGroup;
import io.taskfence.testing.ReplicaCluster;
import io.taskfence.testing.StandaloneRedis;

/**
 * Picks and injects a run's faults. Everything random comes from one seeded {@link Random}, so a run is
 * replayed (the same faults at the same times on the same targets, timing aside) with {@code -Dchaos.seed}.
 * The kinds go round-robin through a list shuffled anew each round, so even a two-minute run with four faults
 * covers four different kinds. Each fault is healed before {@link #inject} returns.
 */
final class Faults {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

    /** A fault planned {@code at} after the load started. */
    record Planned(Duration at, FaultKind kind) {
    }

    private final ReplicaCluster cluster;
    private final LiveReplicas replicas;
    private final Random random;

    Faults(ReplicaCluster cluster, LiveReplicas replicas, long seed) {
        this.cluster = cluster;
        this.replicas = replicas;
        this.random = new Random(seed);
    }

    /**
     * Faults of {@code kinds} 20 to 40 s apart over {@code run}, the first 5 to 15 s in (once the load runs), none
     * starting in the run's last 10 s (so that its healing falls within the run, not into the drain): four in
     * most two-minute runs.
     */
    List<Planned> plan(Duration run, List<FaultKind> kinds) {
        List<Planned> plan = new ArrayList<>();
        List<FaultKind> round = new ArrayList<>();
        long at = 5_000 + random.nextInt(10_001);
        for (; at <= run.toMillis() - 10_000; at += 20_000 + random.nextInt(20_001)) {
            if (round.isEmpty()) {
                round.addAll(kinds);
                Collections.shuffle(round, random);
            }
            plan.add(new Planned(Duration.ofMillis(at), round.removeFirst()));
        }
        return plan;
    }

    /**
     * Injects {@code planned} and heals it; what was done. {@code at} is when it really began: later than
     * planned when the fault before took long to heal.
     */
    InjectedFault inject(Planned planned, Duration at) throws Exception {
        long start = System.nanoTime();
        String target = switch (planned.kind()) {
            case REPLICA_KILL -> killAndRestart();
            case REPLICA_PAUSE -> pausePastLeases();
            case REDIS_FAILOVER -> failOver();
            case REDIS_FLUSH -> {
                cluster.redis("flushdb");
                yield "Redis primary";
            }
            case POSTGRES_RESTART -> cutPostgres();
            case POSTGRES_STALL -> stallPostgres();
        };
        return new InjectedFault(at, planned.kind(), target, Duration.ofNanos(System.nanoTime() - start));
    }

    private String killAndRestart() throws IOException, InterruptedException {
        PackagedService victim = cluster.replicas().get(random.nextInt(cluster.replicas().size()));
        replicas.takeOut(victim);
        victim.signal("KILL");
        victim.process().waitFor();
        long down = 2_000 + random.nextInt(4_000);
        Thread.sleep(down);
        PackagedService restarted = cluster.restart(victim);
        restarted.awaitStatus("/q/health/ready", 200, READY_TIMEOUT);
        replicas.putBack(restarted);
        return victim.id() + ", down " + down / 1000 + "s";
    }

    /**
     * Stops the dispatch lock's holder if one holds it (else any replica) for longer than the lock's lease (2 s)
     * and the processing lease (3 s): both are taken over, and the fence and the claim ids must refuse what it
     * does when it wakes.
     */
    private String pausePastLeases() throws IOException, InterruptedException {
        PackagedService victim = dispatchHolder();
        replicas.takeOut(victim);
        victim.signal("STOP");
        long paused = 5_000 + random.nextInt(3_000);
        try {
            Thread.sleep(paused);
        } finally {
            victim.signal("CONT");
        }
        victim.awaitStatus("/q/health/ready", 200, READY_TIMEOUT);
        replicas.putBack(victim);
        return victim.id() + ", stopped " + paused / 1000 + "s";
    }

    private PackagedService dispatchHolder() throws IOException, InterruptedException {
        String holder = "";
        try {
            holder = cluster.redis("get", cluster.key("lock:{dispatch}"));
        } catch (IllegalStateException noAnswer) {
            // no holder to prefer
        }
        List<PackagedService> all = cluster.replicas();
        // Drawn whether it is used or not, so that a replay's later draws do not depend on who held the lock.
        PackagedService any = all.get(random.nextInt(all.size()));
        for (PackagedService replica : all) {
            if (holder.startsWith(replica.id() + "/")) {
                return replica;
            }
        }
        return any;
    }

    /**
     * Kills or stops the Redis primary until the sentinels promote the replica; the old primary then follows
     * the new one (started again as its replica after a kill, turned into one by the sentinels after a pause),
     * so that the group can fail over again later.
     */
    private String failOver() throws IOException, InterruptedException {
        RedisSentinelGroup sentinels = cluster.sentinels();
        sentinels.awaitReplicaFit(FAILOVER_TIMEOUT);
        StandaloneRedis primary = sentinels.primary();
        StandaloneRedis replica = sentinels.other(primary);
        boolean kill = random.nextBoolean();
        if (kill) {
            primary.close();
            sentinels.awaitPromotion(replica, FAILOVER_TIMEOUT);
            sentinels.rejoin(primary);
        } else {
            primary.signal("STOP");
            try {
                sentinels.awaitPromotion(replica, FAILOVER_TIMEOUT);
            } finally {
                primary.signal("CONT");
            }
        }
        sentinels.awaitReplicaFit(FAILOVER_TIMEOUT);
        return "primary :" + primary.port() + (kill ? " killed" : " stopped") + ", :" + replica.port() + " promoted";
    }

    private String cutPostgres() throws IOException {
        long down = 4_000 + random.nextInt(5_000);
        cluster.cutPostgres();
        try {
            Thread.sleep(down);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            cluster.restorePostgres();
        }
        for (PackagedService replica : cluster.replicas()) {
            replica.awaitStatus("/q/health/ready", 200, READY_TIMEOUT);
        }
        return "all replicas, down " + down / 1000 + "s";
    }

    private String stallPostgres() throws InterruptedException {
        long stalled = 3_000 + random.nextInt(4_000);
        cluster.stallPostgres();
        try {
            Thread.sleep(stalled);
        } finally {
            cluster.resumePostgres();
        }
        for (PackagedService replica : cluster.replicas()) {
            replica.awaitStatus("/q/health/ready", 200, READY_TIMEOUT);
        }
        return "all replicas, " + stalled / 1000 + "s";
    }
}

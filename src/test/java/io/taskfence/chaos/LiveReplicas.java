package io.taskfence.chaos;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Where the load sends its requests: the cluster's current processes, less the one a fault has taken down or
 * stopped, as a load balancer reading readiness would route. A PostgreSQL fault takes no replica out: users
 * then meet its 503s, which is what the run measures.
 */
final class LiveReplicas {

    private final ReplicaCluster cluster;
    private final Set<String> outOfService = ConcurrentHashMap.newKeySet();

    LiveReplicas(ReplicaCluster cluster) {
        this.cluster = cluster;
    }

    /** A replica in service, at random; if a fault has every one out, any of them. */
    PackagedService pick(Random random) {
        List<PackagedService> all = cluster.replicas();
        List<PackagedService> live = all.stream().filter(r -> !outOfService.contains(r.id())).toList();
        List<PackagedService> from = live.isEmpty() ? all : live;
        return from.get(random.nextInt(from.size()));
    }

    void takeOut(PackagedService replica) {
        outOfService.add(replica.id());
    }

    void putBack(PackagedService replica) {
        outOfService.remove(replica.id());
    }
}

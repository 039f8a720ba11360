package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertOneDispatcherAtATime;
import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitStatus;
import static io.taskfence.replicas.ClusterChecks.awaitTrue;
import static io.taskfence.replicas.ClusterChecks.awaitValue;
import static io.taskfence.replicas.ClusterChecks.count;
import static io.taskfence.replicas.ClusterChecks.countBy;
import static io.taskfence.replicas.ClusterChecks.metric;
import static io.taskfence.replicas.ClusterChecks.processingOn;
import static io.taskfence.replicas.ClusterChecks.submit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Three replicas of the packaged application (as in {@link ReplicasIT}) while one of them, or Redis, fails: a replica
 * killed mid-run, the dispatcher paused past its lease, Redis flushed. Each test then checks that every task
 * finishes, that only what the failure explains ran twice, that no stale token's write was accepted, and that every
 * status change was an edge of the state machine. (Apart from {@link ReplicasIT} so that failsafe's two forks share
 * the replica tests.)
 */
class ReplicaFailuresIT {

    /**
     * With four task ids to a queue message, so that a replica whose reader finds one slot free claims four tasks
     * (the rest wait for a worker, their leases held), and whole messages are taken over from the dead one.
     */
    @Test
    void killingAReplicaMidRunLosesNoTaskAndOnlyTheTasksItHeldRunTwice() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of("TASKFENCE_DISPATCH_TASKS_PER_ENTRY", "4"))) {
            List<UUID> ids = submit(cluster, cluster.replicas(), 300, i -> "{\"type\":\"sleep\",\"payload\":{\"ms\":1000}}");
            PackagedService victim = cluster.replica("replica-2");
            awaitTrue("replica-2 is running tasks", Duration.ofSeconds(60), () -> processingOn(cluster, victim) >= 4);

            victim.signal("KILL");
            victim.process().waitFor();
            // Dead, it can change nothing more: what is PROCESSING under its name now is exactly what it held.
            List<UUID> held = ClusterChecks.uuids(cluster, "select id from tasks where status = 'PROCESSING' and worker like ?",
                    victim.id() + "/%");
            assertFalse(held.isEmpty(), "replica-2 held no task when it died: the test proves nothing");

            awaitStatus(cluster, ids, "SUCCEEDED", Duration.ofSeconds(180));
            assertEquals(Map.of(2, (long) held.size()), countBy(cluster, "attempt", held), "the tasks replica-2 held");
            List<UUID> others = new ArrayList<>(ids);
            others.removeAll(held);
            assertEquals(Map.of(1, (long) others.size()), countBy(cluster, "attempt", others), "every other task");
            assertTransitionsAreEdges(cluster);
        }
    }

    @Test
    void aDispatcherPausedPastItsLeaseIsReplacedAndDoesNoHarmWhenItWakes() throws Exception {
        // Small batches make a dispatch run long enough to catch its replica holding the lock.
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of("TASKFENCE_DISPATCH_BATCH_SIZE", "5"))) {
            String lockKey = cluster.key("lock:{dispatch}");
            List<UUID> ids = new ArrayList<>();
            PackagedService paused = null;
            String pausedHolder = null;
            for (int round = 0; round < 20 && paused == null; round++) {
                // Due together in a moment, so that one run has a long way to go.
                String runAt = "\"runAt\":\"" + Instant.now().plusSeconds(2) + "\"";
                ids.addAll(submit(cluster, cluster.replicas(), 1000,
                        i -> "{\"type\":\"noop\",\"payload\":{}," + runAt + "}"));
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (paused == null && System.nanoTime() < deadline) {
                    String holder = cluster.redis("get", lockKey);
                    if (holder.isEmpty()) {
                        Thread.sleep(20);
                        continue;
                    }
                    PackagedService candidate = cluster.replica(holder.substring(0, holder.indexOf('/')));
                    candidate.signal("STOP");
                    if (holder.equals(cluster.redis("get", lockKey))) {
                        paused = candidate; // stopped while it holds the lock, in the middle of a run
                        pausedHolder = holder;
                    } else {
                        candidate.signal("CONT");
                    }
                }
            }
            assertTrue(paused != null, "never caught a replica holding the dispatch lock");
            String stale = pausedHolder;
            long pausedToken = Long.parseLong(stale.substring(stale.lastIndexOf(':') + 1));

            // Paused for longer than the 2 s lease: another replica must take over with a newer token. With nothing
            // left due its runs last milliseconds, so the lock key is seldom caught held; the token counter shows
            // every acquisition, and while the paused replica is stopped, each newer token is another replica's.
            long successorToken = awaitValue("another replica took the dispatch lock", Duration.ofSeconds(20), () -> {
                String issued = cluster.redis("get", cluster.key("fence:{dispatch}"));
                return !issued.isEmpty() && Long.parseLong(issued) > pausedToken ? Long.parseLong(issued) : null;
            });
            // Tasks submitted now can only be dispatched by a newer holder: the paused one may have enqueued
            // every earlier task before it was caught.
            PackagedService frozen = paused;
            ids.addAll(submit(cluster, cluster.replicas().stream().filter(r -> r != frozen).toList(), 50,
                    i -> "{\"type\":\"noop\",\"payload\":{}}"));
            Thread.sleep(3_000); // and dispatches for a while before the paused one wakes
            long lastTokenOfThePause = Long.parseLong(cluster.redis("get", cluster.key("fence:{dispatch}")));
            paused.signal("CONT");

            awaitStatus(cluster, ids, "SUCCEEDED", Duration.ofSeconds(180));
            PackagedService woken = paused;
            double losses = awaitValue("the woken replica reports its lease lost", Duration.ofSeconds(20), () -> {
                double reported = metric(cluster, woken, "taskfence_lock_losses_total{lock=\"dispatch\"}");
                return reported >= 1 ? reported : null;
            });
            double refusals = metric(cluster, woken, "taskfence_fence_refusals_total{lock=\"dispatch\"}");
            assertTrue(woken.output().contains("lock dispatch (token " + pausedToken + ") was lost"),
                    "the woken replica logs the loss of token " + pausedToken);
            System.out.printf("%s: paused %s holding token %d; another replica took over with %d; lost leases "
                    + "reported %.0f, fenced writes refused %.0f%n", cluster, woken.id(), pausedToken, successorToken,
                    losses, refusals);
            // Whatever the woken one still tried was refused: tokens in dispatch_log never go back (checked below),
            // and newer holders did dispatch (at least the tasks submitted during the pause), so the stale token's
            // batches all came before theirs. (Which newer holder dispatched depends on the machine's speed.)
            assertTrue(count(cluster, "select count(*) from dispatch_log where token > ?", pausedToken) > 0,
                    "a newer holder dispatched after the pause");
            assertEquals(0, count(cluster, "select count(*) from dispatch_log where token > ? and token <= ? and holder like ?",
                    pausedToken, lastTokenOfThePause, paused.id() + "/%"), "the paused replica dispatched while it was stopped");
            assertOneDispatcherAtATime(cluster, -1);
            assertTransitionsAreEdges(cluster);
            // Only a task the paused replica was running may have needed a second attempt.
            assertEquals(0, count(cluster, "select count(*) from tasks t where attempt <> 1 and not exists (select 1 "
                    + "from task_events e where e.task_id = t.id and e.to_status in ('FAILED', 'DEAD') "
                    + "and e.error like 'processing lease expired%' and e.worker like ?)", woken.id() + "/%"),
                    "tasks that ran more than once for another reason than the pause");
        }
    }

    @Test
    void everyTaskFinishesAfterRedisIsFlushedMidRunWithoutRestartingAnyReplica() throws Exception {
        // The messages the flush loses are re-enqueued after the enqueued time-out: 5 s, not the cluster's 20 s.
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of("TASKFENCE_RECOVERY_ENQUEUED_TIMEOUT", "5s"))) {
            // Held back until every task is submitted, however slow the machine; each then runs 2 s, so the
            // first moment that workers hold tasks and messages wait in the stream comes long before most finish.
            String runAt = "\"runAt\":\"" + Instant.now().plusSeconds(5) + "\"";
            List<UUID> ids = submit(cluster, cluster.replicas(), 150,
                    i -> "{\"type\":\"sleep\",\"payload\":{\"ms\":2000}," + runAt + "}");
            awaitTrue("tasks are running and others wait in the stream", Duration.ofSeconds(60),
                    () -> count(cluster, "select count(*) from tasks where status = 'PROCESSING'") >= 10
                            && count(cluster, "select count(*) from tasks where status = 'ENQUEUED'") >= 10);
            assertTrue(count(cluster, "select count(*) from tasks where status <> 'SUCCEEDED'") > 75,
                    "nearly every task had finished before Redis lost its data: the test proves nothing");
            long fenceBefore = count(cluster, "select coalesce(max(token), 0) from fences where name = 'dispatch'");

            assertEquals("OK", cluster.redis("flushdb"));

            awaitStatus(cluster, ids, "SUCCEEDED", Duration.ofSeconds(180));
            for (PackagedService replica : cluster.replicas()) {
                assertTrue(replica.process().isAlive(), replica.id() + " is still the process it was");
            }
            long fence = count(cluster, "select token from fences where name = 'dispatch'");
            long counter = Long.parseLong(cluster.redis("get", cluster.key("fence:{dispatch}")));
            assertTrue(fence > fenceBefore, "dispatch went on past the fence " + fenceBefore + " (now " + fence + ")");
            assertTrue(counter >= fence, "the token counter " + counter + " was raised above the fence " + fence);
            double repairs = 0;
            for (PackagedService replica : cluster.replicas()) {
                repairs += metric(cluster, replica, "taskfence_fence_repairs_total{lock=\"dispatch\"}");
            }
            assertTrue(repairs >= 1, "the replicas count the repair of the dispatch counter");
            assertTransitionsAreEdges(cluster);
        }
    }
}

package io.taskfence.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.client.ClaimSupersededException;
import io.taskfence.client.ClaimedTask;
import io.taskfence.client.Dedupe;
import io.taskfence.client.PermanentFailure;
import io.taskfence.client.ServiceUnavailableException;
import io.taskfence.client.TaskHandler;
import io.taskfence.client.TaskfenceClient;
import io.taskfence.client.TaskfenceException;
import io.taskfence.client.Worker;
import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * The Java client (clients/java) against a packaged replica: submit and wait, the worker loop's results and failures,
 * a cancel interrupting the handler within a heartbeat and a time-out at its end, a stop handing back what runs,
 * progress reports, superseded claims refused, and moving on from an unreachable replica. Each test uses its own type while its worker runs, or waits for its own.
 */
class JavaClientIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ReplicaCluster cluster;
    private static TaskfenceClient submitter;
    private static TaskfenceClient workerClient;

    @BeforeAll
    static void startReplica() throws Exception {
        cluster = ReplicaCluster.start(1, RemoteTypeSettings.ENVIRONMENT);
        String url = cluster.replicas().getFirst().uri("/").toString();
        submitter = TaskfenceClient.of(url, ReplicaCluster.ADMIN_KEY);
        workerClient = TaskfenceClient.of(url, RemoteTypeSettings.WORKER_KEY);
    }

    @AfterAll
    static void stopReplica() throws Exception {
        cluster.close();
    }

    @Test
    void aWorkerRunsTasksItsResultsAreStoredAndFailuresRetriedOrDead() throws Exception {
        try (RunningWorker worker = RunningWorker.start(RemoteTypeSettings.TYPE, job -> {
            JsonNode payload = job.task().payload();
            if (payload.path("permanent").asBoolean()) {
                throw new PermanentFailure("not an image");
            }
            if (payload.path("flaky").asBoolean() && job.task().attempt() == 1) {
                throw new IllegalStateException("disk full");
            }
            return Map.of("doubled", payload.path("n").asInt() * 2, "token", job.task().fencingToken());
        })) {
            JsonNode done = submitter.submitAndWait(RemoteTypeSettings.TYPE, Map.of("n", 21), Duration.ofSeconds(30));
            assertEquals("SUCCEEDED", done.get("status").asText());
            assertEquals(42, done.get("result").get("doubled").asInt());
            assertEquals(1, done.get("result").get("token").asInt());
            JsonNode dead = submitter.submitAndWait(RemoteTypeSettings.TYPE, Map.of("permanent", true), Duration.ofSeconds(30));
            assertEquals("DEAD", dead.get("status").asText());
            assertEquals("not an image", dead.get("lastError").asText());
            JsonNode retried = submitter.submitAndWait(RemoteTypeSettings.TYPE, Map.of("flaky", true, "n", 1),
                    Duration.ofSeconds(30));
            assertEquals("SUCCEEDED", retried.get("status").asText());
            assertEquals(2, retried.get("attempt").asInt());
        }
    }

    /** A dedupe key answers the task it made while that task has not started: the second debounce changes it. */
    @Test
    void aDebounceWithTheSameKeyAnswersTheUnstartedTaskWithTheNewPayload() {
        Dedupe dedupe = Dedupe.debounce("java-client-" + UUID.randomUUID(), Duration.ofHours(1), Duration.ofHours(2));
        JsonNode first = submitter.submit(RemoteTypeSettings.OTHER_TYPE, Map.of("n", 1), dedupe);
        JsonNode second = submitter.submit(RemoteTypeSettings.OTHER_TYPE, Map.of("n", 2), dedupe);
        assertEquals(first.get("id"), second.get("id"));
        assertEquals(2, submitter.get(first.get("id").asText()).get("payload").get("n").asInt());
        assertEquals("PENDING", second.get("status").asText());
    }

    /** A job's progress shows in its task while it runs; a report held back within the second is sent before the end. */
    @Test
    void aJobsProgressShowsInItsTaskAndItsLastReportIsKept() throws Exception {
        CountDownLatch seen = new CountDownLatch(1);
        try (RunningWorker worker = RunningWorker.start(RemoteTypeSettings.OTHER_TYPE, job -> {
            job.progress(Map.of("done", 1, "total", 3));
            seen.await(30, TimeUnit.SECONDS);
            job.progress(Map.of("done", 2, "total", 3));
            job.progress(Map.of("done", 3, "total", 3, "message", "last")); // within the second: held back
            return Map.of();
        })) {
            String id = submitter.submit(RemoteTypeSettings.OTHER_TYPE, Map.of()).get("id").asText();
            JsonNode running = submitter.get(id);
            for (long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    running.path("progress").isMissingNode() && System.nanoTime() < end; running = submitter.get(id)) {
                Thread.sleep(50);
            }
            assertEquals(1, running.path("progress").path("done").asInt(), running.toString());
            assertEquals("PROCESSING", running.get("status").asText());
            seen.countDown();
            JsonNode done = submitter.waitFor(id, Duration.ofSeconds(30));
            assertEquals("SUCCEEDED", done.get("status").asText());
            assertEquals("last", done.path("progress").path("message").asText(), done.toString());
        }
    }

    @Test
    void aCancelInterruptsTheHandlerWithinAHeartbeatAndStoresNothing() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        try (RunningWorker worker = RunningWorker.start(RemoteTypeSettings.OTHER_TYPE, job -> {
            started.countDown();
            try {
                Thread.sleep(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            return Map.of("finished", "anyway");
        })) {
            String id = submitter.submit(RemoteTypeSettings.OTHER_TYPE, Map.of()).get("id").asText();
            assertTrue(started.await(30, TimeUnit.SECONDS), "the worker got the task");
            assertEquals(200, cluster.post(cluster.replicas().getFirst(), "/api/v1/tasks/" + id + "/cancel", "").statusCode());
            // A lease of 3 s: a heartbeat each second.
            assertTrue(interrupted.await(5, TimeUnit.SECONDS), "the handler was interrupted within a heartbeat");
            Thread.sleep(1_500); // what the handler returned is not written
            JsonNode after = submitter.get(id);
            assertEquals("CANCELLED", after.get("status").asText());
            assertTrue(after.get("result").isNull());
        }
    }

    @Test
    void stoppingHandsBackWhatStillRuns() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        String id;
        try (RunningWorker worker = RunningWorker.start(RemoteTypeSettings.OTHER_TYPE, Duration.ofMillis(500), job -> {
            started.countDown();
            Thread.sleep(Duration.ofSeconds(60));
            return null;
        })) {
            id = submitter.submit(RemoteTypeSettings.OTHER_TYPE, Map.of("long", true)).get("id").asText();
            assertTrue(started.await(30, TimeUnit.SECONDS));
        }
        JsonNode after = submitter.get(id);
        assertTrue(List.of("PENDING", "ENQUEUED").contains(after.get("status").asText()), after.toString());
        assertEquals(0, after.get("attempt").asInt(), "the attempt was not counted");
        try (RunningWorker worker = RunningWorker.start(RemoteTypeSettings.OTHER_TYPE, job -> Map.of("done", true))) {
            assertEquals("SUCCEEDED", submitter.waitFor(id, Duration.ofSeconds(30)).get("status").asText());
        }
    }

    @Test
    void aClaimThatNoLongerHoldsIsRefusedAndAnUnreachableReplicaIsPassedOver() throws Exception {
        TaskfenceClient viaDeadReplica = new TaskfenceClient(List.of(URI.create("http://127.0.0.1:9"),
                cluster.replicas().getFirst().uri("/")), ReplicaCluster.ADMIN_KEY, Duration.ofSeconds(2));
        assertThrows(ServiceUnavailableException.class, () -> viaDeadReplica.get("anything"));
        String id = viaDeadReplica.submit(RemoteTypeSettings.TYPE, Map.of("direct", true)).get("id").asText();
        List<ClaimedTask> claims = List.of();
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (claims.isEmpty() && System.nanoTime() < end) {
            claims = workerClient.claim(List.of(RemoteTypeSettings.TYPE), 1, Duration.ofSeconds(5), "direct");
        }
        assertEquals(id, claims.getFirst().taskId());
        ClaimedTask claim = claims.getFirst();
        workerClient.complete(claim, Map.of("first", true));
        assertThrows(ClaimSupersededException.class, () -> workerClient.heartbeat(claim));
        assertThrows(ClaimSupersededException.class, () -> workerClient.complete(claim, Map.of("second", true)));
        assertTrue(submitter.get(id).get("result").get("first").asBoolean());
        TaskfenceException unknown = assertThrows(TaskfenceException.class,
                () -> workerClient.heartbeat(new ClaimedTask(UUID.randomUUID() + ".1.eA", claim.taskId(), claim.type(),
                        claim.payload(), 1, 1, claim.leaseUntil(), claim.leaseMillis(), null, null, null)));
        assertEquals(404, unknown.status());
    }

    @Test
    void aHandlerPastItsTimeOutIsInterruptedAndTheTaskRetried() throws Exception {
        // A lease of 30 s: the first heartbeat (whose 409 would stop the handler too) comes 10 s after the claim.
        Map<String, String> longLease = new HashMap<>(RemoteTypeSettings.ENVIRONMENT);
        longLease.put("TASKFENCE_WORKER_LEASE", "30s");
        try (ReplicaCluster longLeases = ReplicaCluster.start(1, longLease)) {
            PackagedService replica = longLeases.replicas().getFirst();
            TaskfenceClient worker = TaskfenceClient.of(replica.uri("/").toString(), RemoteTypeSettings.WORKER_KEY);
            AtomicLong claimedAt = new AtomicLong();
            AtomicLong interruptedAt = new AtomicLong();
            CountDownLatch interrupted = new CountDownLatch(1);
            try (RunningWorker running = RunningWorker.start(worker, RemoteTypeSettings.TYPE, Duration.ofSeconds(5), job -> {
                if (job.task().attempt() > 1) {
                    return Map.of("attempt", job.task().attempt());
                }
                claimedAt.set(System.nanoTime());
                try {
                    Thread.sleep(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    interruptedAt.set(System.nanoTime());
                    interrupted.countDown();
                }
                return Map.of("attempt", 1); // not written: the claim timed out
            })) {
                HttpResponse<String> submitted = longLeases.post(replica, "/api/v1/tasks",
                        "{\"type\":\"" + RemoteTypeSettings.TYPE + "\",\"payload\":{},\"timeout\":\"1s\"}");
                assertEquals(201, submitted.statusCode(), submitted.body());
                String id = JSON.readTree(submitted.body()).get("id").asText();
                assertTrue(interrupted.await(30, TimeUnit.SECONDS), "the handler was interrupted");
                long afterClaim = interruptedAt.get() - claimedAt.get();
                assertTrue(afterClaim < Duration.ofMillis(2_500).toNanos(), "interrupted " + afterClaim / 1_000_000
                        + " ms after the claim, not at its time-out of 1 s");
                JsonNode done = TaskfenceClient.of(replica.uri("/").toString(), ReplicaCluster.ADMIN_KEY)
                        .waitFor(id, Duration.ofSeconds(30));
                assertEquals("SUCCEEDED", done.get("status").asText(), done.toString());
                assertEquals(2, done.get("result").get("attempt").asInt(), "the timed-out attempt wrote nothing");
            }
        }
    }

    /** A worker loop on a thread of its own, stopped (and drained) on close. */
    private record RunningWorker(Worker worker, ExecutorService thread, Future<?> run) implements AutoCloseable {

        static RunningWorker start(String type, TaskHandler handler) {
            return start(type, Duration.ofSeconds(5), handler);
        }

        static RunningWorker start(String type, Duration drain, TaskHandler handler) {
            return start(workerClient, type, drain, handler);
        }

        static RunningWorker start(TaskfenceClient client, String type, Duration drain, TaskHandler handler) {
            Worker worker = new Worker(client, List.of(type), handler, 4, Duration.ofSeconds(1), "java-it", drain);
            ExecutorService thread = Executors.newSingleThreadExecutor();
            return new RunningWorker(worker, thread, thread.submit(() -> {
                worker.run();
                return null;
            }));
        }

        @Override
        public void close() throws Exception {
            worker.stop();
            run.get(30, TimeUnit.SECONDS);
            thread.shutdown();
        }
    }
}

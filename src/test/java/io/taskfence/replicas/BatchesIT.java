package io.taskfence.replicas;

import static io.taskfence.replicas.ClusterChecks.assertTransitionsAreEdges;
import static io.taskfence.replicas.ClusterChecks.awaitTrue;
import static io.taskfence.replicas.ClusterChecks.count;
import static io.taskfence.replicas.ClusterChecks.processingOn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * A batch of 10,000 tasks, sent in ten requests, over three replicas of the packaged service while one of them is
 * stopped (SIGSTOP) past its leases in the middle of the batch: the then task runs once, after the last task
 * SUCCEEDED, with the batch's counts in its payload, and every task counts once although the stopped replica's
 * handlers finish theirs when it wakes.
 */
class BatchesIT {

    private static final int REQUESTS = 10;
    private static final int PER_REQUEST = 1000;
    private static final String ITEM = "{\"type\":\"sleep\",\"payload\":{\"ms\":15}}";

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aTenThousandTaskBatchRunsItsThenTaskOnceAfterTheLastWhileAReplicaIsStopped() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, Map.of())) {
            List<PackagedService> replicas = cluster.replicas();
            String items = String.join(",", Collections.nCopies(PER_REQUEST, ITEM));
            JsonNode first = post(cluster, replicas.get(0), "{\"tasks\":[" + items + "],\"open\":true,"
                    + "\"then\":{\"type\":\"noop\",\"payload\":{\"report\":\"done\"}}}");
            String batch = first.path("batch").path("id").asText();
            UUID then = UUID.fromString(first.path("batch").path("thenTaskId").asText());
            for (int request = 1; request < REQUESTS; request++) {
                JsonNode added = post(cluster, replicas.get(request % 3), "{\"tasks\":[" + items + "],\"batchId\":\""
                        + batch + "\"" + (request < REQUESTS - 1 ? ",\"open\":true" : "") + "}");
                assertEquals(PER_REQUEST, added.path("created").asInt());
            }
            assertEquals("CLOSED", batchView(cluster, batch).path("status").asText());

            // Stopped while it runs some of the batch, and for longer than its leases (3 s for tasks, 2 s for locks):
            // what it held runs again, and the jobs it led go on under newer tokens. A stop that found
            // nothing of it to take back (what it ran had finished, or its successes were on their way: a slow
            // machine's replica may be between two reads of the queue) is undone and made again.
            PackagedService victim = cluster.replica("replica-2");
            UUID batchId = UUID.fromString(batch);
            String takenBack = "select count(*) from task_events e join tasks t on t.id = e.task_id where t.batch_id = ? "
                    + "and e.from_status = 'PROCESSING' and e.to_status = 'FAILED' and e.worker like ?";
            for (int stop = 1; count(cluster, takenBack, batchId, victim.id() + "/%") == 0; stop++) {
                assertTrue(stop <= 5, "five stops of replica-2 took none of its tasks back");
                awaitTrue("replica-2 runs tasks of the batch", Duration.ofSeconds(60),
                        () -> processingOn(cluster, victim) > 0);
                victim.signal("STOP");
                try {
                    awaitTrue("the stopped replica's tasks were taken back", Duration.ofSeconds(60),
                            () -> processingOn(cluster, victim) == 0);
                } catch (ConditionTimeoutException e) {
                    throw new AssertionError(processingOn(cluster, victim) + " tasks still PROCESSING on the stopped "
                            + "replica after 60 s; sessions:" + ClusterChecks.sessions(cluster), e);
                }
                assertTrue(batchView(cluster, batch).path("unfinished").asInt() > 0, "the batch was over before the stop");
                victim.signal("CONT");
            }

            awaitTrue("the then task SUCCEEDED", Duration.ofSeconds(180), () -> count(cluster,
                    "select count(*) from tasks where id = ? and status = 'SUCCEEDED'", then) == 1);
            assertEquals(REQUESTS * PER_REQUEST, count(cluster, "select count(*) from tasks where batch_id = ? "
                    + "and status = 'SUCCEEDED'", batchId));
            assertEquals(REQUESTS * PER_REQUEST, count(cluster, "select count(*) from task_events e join tasks t "
                    + "on t.id = e.task_id where t.batch_id = ? and e.to_status = 'SUCCEEDED'", batchId),
                    "every task succeeded once, the stopped replica's late successes refused");
            assertEquals(0, count(cluster, "select count(*) from tasks t where t.batch_id = ? and exists (select 1 "
                    + "from task_events e where e.task_id = t.id and e.from_status = 'PROCESSING' and e.to_status = 'FAILED' "
                    + "and e.worker like ?) and (t.status <> 'SUCCEEDED' or t.attempt < 2)", batchId, victim.id() + "/%"),
                    "every task taken back from the stopped replica ran again, and SUCCEEDED");
            assertEquals(1, count(cluster, "select count(*) from task_events where task_id = ? "
                    + "and to_status = 'PROCESSING'", then), "the then task ran once");
            assertEquals(1, count(cluster, "select count(*) from task_events r where r.task_id = ? "
                    + "and r.from_status = 'WAITING' and r.to_status = 'PENDING' and r.at >= (select max(e.at) "
                    + "from task_events e join tasks t on t.id = e.task_id where t.batch_id = ? "
                    + "and e.to_status = 'SUCCEEDED')", then, batchId), "the then task was released after the last task");
            JsonNode payload = json.readTree(ClusterChecks.text(cluster, "select payload::text from tasks where id = ?",
                    then));
            assertEquals("done", payload.path("report").asText());
            JsonNode outcome = payload.path("batch");
            assertEquals(List.of(batch, REQUESTS * PER_REQUEST, REQUESTS * PER_REQUEST, 0, 0, 0),
                    List.of(outcome.path("id").asText(), outcome.path("items").asInt(), outcome.path("succeeded").asInt(),
                            outcome.path("dead").asInt(), outcome.path("cancelled").asInt(),
                            outcome.path("failed").size()), outcome::toString);
            JsonNode view = batchView(cluster, batch);
            assertEquals(List.of("COMPLETE", REQUESTS * PER_REQUEST, 0, "SUCCEEDED"),
                    List.of(view.path("status").asText(), view.path("succeeded").asInt(), view.path("unfinished").asInt(),
                            view.path("thenStatus").asText()), view::toString);
            assertTransitionsAreEdges(cluster);
        }
    }

    private JsonNode post(ReplicaCluster cluster, PackagedService replica, String body) throws Exception {
        HttpResponse<String> answer = cluster.post(replica, "/api/v1/tasks/batch", body);
        assertEquals(200, answer.statusCode(), answer.body());
        return json.readTree(answer.body());
    }

    private JsonNode batchView(ReplicaCluster cluster, String batch) throws Exception {
        HttpResponse<String> answer = cluster.get(cluster.replicas().getFirst(), "/api/v1/batches/" + batch);
        assertEquals(200, answer.statusCode(), answer.body());
        return json.readTree(answer.body());
    }
}

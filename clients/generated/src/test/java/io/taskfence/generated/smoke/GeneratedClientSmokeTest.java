package io.taskfence.generated.smoke;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.generated.ApiClient;
import io.taskfence.generated.api.ClaimsApi;
import io.taskfence.generated.api.TasksApi;
import io.taskfence.generated.model.BatchAnswer;
import io.taskfence.generated.model.BatchItem;
import io.taskfence.generated.model.BatchTask;
import io.taskfence.generated.model.ClaimRequest;
import io.taskfence.generated.model.ClaimResult;
import io.taskfence.generated.model.ClaimedTask;
import io.taskfence.generated.model.Dedupe;
import io.taskfence.generated.model.SubmitBatch;
import io.taskfence.generated.model.SubmitTask;
import io.taskfence.generated.model.Task;
import io.taskfence.generated.model.TaskField;
import io.taskfence.generated.model.TaskPage;
import io.taskfence.generated.model.TaskStatus;

/**
 * The Java client generated from the OpenAPI document (openapi-generator, {@code native} library), and nothing else,
 * against a packaged replica: what a user of a generated client does first. Payloads and results are compared as the
 * JSON they are (maps, lists, numbers, text), so that a document that lets the generator type them as anything but
 * JSON fails here.
 */
class GeneratedClientSmokeTest {

    /**
     * Nested objects and arrays, both kinds of number, a boolean, text beyond ASCII. No JSON null: the generated
     * client's mapper leaves nulls out, also a map's (clients/generated/README.md).
     */
    private static final Map<String, Object> PAYLOAD = payload();

    private static final ObjectMapper PLAIN = new ObjectMapper();

    private static PackagedReplica replica;
    private static TasksApi tasks;
    private static ClaimsApi claims;

    @BeforeAll
    static void startReplica() throws Exception {
        replica = PackagedReplica.start(Path.of("target", "smoke", "replica.log"), Duration.ofSeconds(120));
        tasks = new TasksApi(client(PackagedReplica.SUBMIT_KEY));
        claims = new ClaimsApi(client(PackagedReplica.WORKER_KEY));
    }

    @AfterAll
    static void stopReplica() throws Exception {
        if (replica != null) {
            replica.close();
        }
    }

    @Test
    void aTaskWithANestedPayloadIsReadBackWithWaitItsResultEqualToThePayload() throws Exception {
        Task submitted = tasks.submitTask(new SubmitTask().type("noop").payload(PAYLOAD), null);
        assertEquals(PAYLOAD, json(submitted.getPayload()));

        Task done = tasks.getTask(submitted.getId(), null, "30s");
        assertEquals(TaskStatus.SUCCEEDED, done.getStatus());
        assertEquals(PAYLOAD, json(done.getPayload()));
        assertEquals(PAYLOAD, json(done.getResult())); // noop's result is its payload
    }

    @Test
    void listingsFilterByTypeAndStatusAndACancelledTaskIsListedAsCancelled() throws Exception {
        Task done = tasks.getTask(tasks.submitTask(new SubmitTask().type("noop").payload(Map.of("n", 1)), null)
                .getId(), null, "30s");
        Task later = tasks.submitTask(new SubmitTask().type("noop").payload(Map.of("n", 2))
                .runAt(OffsetDateTime.now().plusHours(1)), null);
        assertEquals(TaskStatus.PENDING, later.getStatus());

        Task cancelled = tasks.cancelTask(later.getId());
        assertEquals(TaskStatus.CANCELLED, cancelled.getStatus());
        assertEquals(TaskStatus.CANCELLED, tasks.getTask(later.getId(), null, null).getStatus());

        assertListed(done, TaskStatus.SUCCEEDED);
        assertListed(cancelled, TaskStatus.CANCELLED);
    }

    @Test
    void aReplaceWithTheSameDedupeKeyAnswersTheUnstartedTaskWithTheNewPayload() throws Exception {
        Dedupe dedupe = new Dedupe().key("generated-" + UUID.randomUUID()).mode(Dedupe.ModeEnum.REPLACE);
        OffsetDateTime inAnHour = OffsetDateTime.now().plusHours(1);
        Task first = tasks.submitTask(new SubmitTask().type("noop").payload(Map.of("n", 1)).runAt(inAnHour)
                .dedupe(dedupe), null);
        Task second = tasks.submitTask(new SubmitTask().type("noop").payload(Map.of("n", 2)).runAt(inAnHour)
                .dedupe(dedupe), null);
        assertEquals(first.getId(), second.getId());
        assertEquals(Map.of("n", 2), json(tasks.getTask(first.getId(), null, null).getPayload()));
        tasks.cancelTask(first.getId());
    }

    @Test
    void aBatchAnswersEveryTaskInOrderAndEachRunsWithItsPayload() throws Exception {
        List<Map<String, Object>> payloads = List.of(PAYLOAD, Map.of("index", 1, "tags", List.of("a", "b")),
                Map.of("index", 2, "empty", Map.of()));
        SubmitBatch batch = new SubmitBatch();
        payloads.forEach(payload -> batch.addTasksItem(new BatchTask().type("noop").payload(payload)));
        batch.getTasks().getFirst().idempotencyKey("generated-" + UUID.randomUUID());

        BatchAnswer answer = tasks.submitTasks(batch);
        assertEquals(3, answer.getCreated());
        assertEquals(0, answer.getRefused());
        for (int i = 0; i < payloads.size(); i++) {
            BatchItem item = answer.getItems().get(i);
            assertEquals(i, item.getIndex());
            assertEquals(201, item.getStatus());
            Task done = tasks.getTask(item.getTask().getId(), null, "30s");
            assertEquals(TaskStatus.SUCCEEDED, done.getStatus());
            assertEquals(payloads.get(i), json(done.getResult()));
        }
    }

    @Test
    void aWorkerKeyClaimsARemoteTaskAndCompletesItWithAResultTheSubmitterReads() throws Exception {
        Task submitted = tasks.submitTask(new SubmitTask().type(PackagedReplica.REMOTE_TYPE).payload(PAYLOAD), null);

        List<ClaimedTask> claimed = claims.claimTasks(new ClaimRequest().types(List.of(PackagedReplica.REMOTE_TYPE))
                .max(1).wait("30s").worker("generated-client")).getClaims();
        assertEquals(1, claimed.size());
        ClaimedTask claim = claimed.getFirst();
        assertEquals(submitted.getId(), claim.getTaskId());
        assertEquals(PAYLOAD, json(claim.getPayload()));
        assertEquals(1, claim.getAttempt());
        assertEquals(1L, claim.getFencingToken());

        Map<String, Object> result = Map.of("width", 320, "sizes", List.of(Map.of("w", 64, "h", 48)), "ratio", 0.5);
        assertEquals(TaskStatus.SUCCEEDED,
                claims.completeClaim(claim.getClaimId(), new ClaimResult().result(result)).getStatus());

        Task done = tasks.getTask(submitted.getId(), null, "30s");
        assertEquals(TaskStatus.SUCCEEDED, done.getStatus());
        assertEquals(PAYLOAD, json(done.getPayload()));
        assertEquals(result, json(done.getResult()));
    }

    /**
     * {@code task} is among the tasks listed with its type and {@code status}, with its payload and result (both asked
     * for by fields, which the client sends comma-separated), and every task listed matches both.
     */
    private static void assertListed(Task task, TaskStatus status) throws Exception {
        // after, batch, createdAfter, createdBefore, error, fields, limit, owner, status, text, type
        TaskPage page = tasks.listTasks(null, null, null, null, null, Set.of(TaskField.PAYLOAD, TaskField.RESULT), 100,
                null, status, null, task.getType());
        Task listed = page.getItems().stream().filter(each -> each.getId().equals(task.getId())).findFirst()
                .orElseThrow(() -> new AssertionError(task.getId() + " is not listed with status " + status));
        assertEquals(json(task.getPayload()), json(listed.getPayload()));
        assertEquals(json(task.getResult()), json(listed.getResult()));
        page.getItems().forEach(each -> {
            assertEquals(status, each.getStatus());
            assertEquals(task.getType(), each.getType());
        });
    }

    /** A generated client of the replica, sending {@code key}: the native library leaves authentication to the caller. */
    private static ApiClient client(String key) {
        ApiClient client = new ApiClient();
        client.updateBaseUri(replica.api().toString());
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + key));
        return client;
    }

    /** {@code value} as plain JSON values (maps, lists, numbers, text, nulls kept), whatever type the client gave it. */
    private static Object json(Object value) {
        return PLAIN.convertValue(value, Object.class);
    }

    private static Map<String, Object> payload() {
        return Map.of("image", Map.of("url", "https://images.example/cat.png", "size", List.of(640, 480)),
                "steps", List.of(Map.of("op", "crop", "box", List.of(0, 0, 320, 240)), Map.of("op", "scale", "factor", 0.5)),
                "caption", "Grüße, ✓",
                "lossless", true);
    }
}

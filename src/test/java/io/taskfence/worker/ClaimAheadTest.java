package io.taskfence.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.Sql;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.testing.TestServers;

/**
 * Tasks claimed ahead of a free worker (taskfence.worker.claim-ahead) keep their processing lease while they
 * wait, however long that is: none is recovered from under its claim and run a second time.
 */
@QuarkusTest
@TestServers
@TestProfile(ClaimAheadTest.OneWorkerTwoAhead.class)
class ClaimAheadTest {

    /** Longer than two leases, so that a claim waiting behind it without a heartbeat would lapse. */
    private static final int SLEEP_MS = 8_000;

    public static final class OneWorkerTwoAhead implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(new RunningTasksProfile().getConfigOverrides());
            settings.put("taskfence.worker.concurrency", "1");
            settings.put("taskfence.worker.claim-ahead", "2");
            return settings;
        }
    }

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    DataSource db;

    @Test
    void claimsWaitingForTheWorkerKeepTheirLeaseAndRunOnce() {
        UUID sleeper = submit("sleep", JsonNodeFactory.instance.objectNode().put("ms", SLEEP_MS));
        awaitStatus(List.of(sleeper), TaskStatus.PROCESSING, Duration.ofSeconds(30));
        // Both in one transaction, so that one dispatch takes both: one taken by a dispatch between two submissions
        // would be claimed alone, and the reader, one slot free then, waits for the two a refill takes (claim-ahead)
        // until the sleeper ends.
        NewTask noop = new NewTask("noop", JsonNodeFactory.instance.objectNode(), 5, 0, null, null, null);
        List<UUID> waiting = transitions.submitAll(List.of(noop, noop)).stream()
                .map(outcome -> ((Submission) outcome).task().id()).toList();
        // With one worker busy, PROCESSING means claimed ahead, waiting for it.
        awaitStatus(waiting, TaskStatus.PROCESSING, Duration.ofSeconds(SLEEP_MS / 2_000));
        assertEquals(TaskStatus.PROCESSING, status(sleeper), "the sleeper should still hold the one worker");

        awaitStatus(waiting, TaskStatus.SUCCEEDED, Duration.ofSeconds(60));
        for (UUID id : waiting) {
            assertEquals(1, Sql.count(db, "select attempt from tasks where id = ?", id), "task " + id + "'s attempts");
            assertEquals(1, Sql.count(db, "select enqueues from tasks where id = ?", id), "task " + id + "'s dispatches");
        }
    }

    private UUID submit(String type, ObjectNode payload) {
        return transitions.submit(new NewTask(type, payload, 5, 0, null, null, null)).task().id();
    }

    private TaskStatus status(UUID id) {
        return queries.find(id).orElseThrow().status();
    }

    private void awaitStatus(List<UUID> ids, TaskStatus wanted, Duration atMost) {
        await(ids + " " + wanted).atMost(atMost).pollInterval(Duration.ofMillis(100))
                .until(() -> ids.stream().allMatch(id -> status(id) == wanted));
    }
}

package io.taskfence.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.TestServers;

/**
 * Many handler threads finishing at once share batches: each learns whether its own success was written,
 * current and superseded claims mixed in one batch included, and each task ends as its claim deserves.
 */
@QuarkusTest
@TestServers
class SuccessBatchesTest {

    private static final int THREADS = 16;
    private static final int PER_THREAD = 20;

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;
    @Inject
    TaskFixtures fixtures;

    @Test
    void concurrentSuccessesAreEachWrittenOnceAndSupersededOnesAreRefused() throws Exception {
        List<Claim> current = new ArrayList<>();
        List<Claim> superseded = new ArrayList<>();
        for (int i = 0; i < THREADS * PER_THREAD; i++) {
            Claim claim = fixtures.claimed();
            if (i % 4 == 0) {
                superseded.add(new Claim(claim.taskId(), claim.type(), claim.payload(), claim.attempt(), "replaced"));
            } else {
                current.add(claim);
            }
        }
        List<Claim> all = new ArrayList<>(current);
        all.addAll(superseded);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService handlers = Executors.newFixedThreadPool(THREADS);
        List<Future<Boolean>> answers = new ArrayList<>();
        try (SuccessBatches successes = new SuccessBatches(transitions.attempts())) {
            for (Claim claim : all) {
                answers.add(handlers.submit(() -> {
                    start.await();
                    return successes.complete(claim, JsonNodeFactory.instance.objectNode().put("by", claim.claimId()))
                            .get();
                }));
            }
            start.countDown();
            for (int i = 0; i < all.size(); i++) {
                assertEquals(current.contains(all.get(i)), answers.get(i).get(), "answer for " + all.get(i));
            }
        } finally {
            handlers.shutdownNow();
        }
        for (Claim claim : current) {
            assertEquals(TaskStatus.SUCCEEDED, queries.find(claim.taskId()).orElseThrow().status());
            assertEquals(claim.claimId(), queries.find(claim.taskId()).orElseThrow().result().get("by").asText());
        }
        for (Claim claim : superseded) {
            assertEquals(TaskStatus.PROCESSING, queries.find(claim.taskId()).orElseThrow().status());
        }
    }
}

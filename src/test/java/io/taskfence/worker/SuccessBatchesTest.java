package io.taskfence.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.Task;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.query.TaskQueries;
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
                superseded.add(new Claim(claim.taskId(), claim.type(), claim.payload(), claim.attempt(), "replaced", null, 0, null));
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

    /**
     * A result PostgreSQL refuses ({"n": 1e200000} overflows jsonb's numeric) fails its own task's write only: the
     * other 499 successes of its batch are written with their results.
     */
    @Test
    void oneResultPostgresRefusesFailsOnlyItsOwnTaskNotItsBatch() throws Exception {
        List<Claim> claims = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            claims.add(fixtures.claimed());
        }
        Claim poisoned = claims.get(250);
        CountDownLatch allQueued = new CountDownLatch(1);
        Claim first = fixtures.claimed();
        // `first` is written alone; its answer comes before the writer calls back, and there it waits until the
        // 500 are queued: they go in the next batch together.
        try (SuccessBatches successes = new SuccessBatches(transitions.attempts(), written -> {
            if (written.contains(first)) {
                awaitQuietly(allQueued);
            }
        })) {
            assertTrue(successes.complete(first, null).get());
            List<CompletableFuture<Boolean>> answers = new ArrayList<>();
            for (Claim claim : claims) {
                answers.add(successes.complete(claim, claim == poisoned
                        ? JsonNodeFactory.instance.objectNode().put("n", new BigDecimal("1e200000"))
                        : JsonNodeFactory.instance.objectNode().put("by", claim.claimId())));
            }
            allQueued.countDown();
            for (int i = 0; i < claims.size(); i++) {
                if (claims.get(i) == poisoned) {
                    ExecutionException refused = assertThrows(ExecutionException.class, () -> answers.get(250).get());
                    assertTrue(refused.getCause().getMessage().contains("numeric"), refused.getCause().getMessage());
                } else {
                    assertTrue(answers.get(i).get(), "the success of " + claims.get(i) + " was written");
                }
            }
        }
        for (Claim claim : claims) {
            Task task = queries.find(claim.taskId()).orElseThrow();
            if (claim == poisoned) {
                assertEquals(TaskStatus.PROCESSING, task.status(), "its lease runs out, and recovery decides");
            } else {
                assertEquals(TaskStatus.SUCCEEDED, task.status());
                assertEquals(claim.claimId(), task.result().get("by").asText());
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

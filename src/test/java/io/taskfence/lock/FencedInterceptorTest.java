package io.taskfence.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;

/** {@code @Fenced}: one run at a time across callers, skipped (not queued) when taken, token in hand. */
@QuarkusTest
@TestServers
class FencedInterceptorTest {

    @Inject
    FencedProbe probe;
    @Inject
    FencedLocks locks;
    @Inject
    CurrentLease current;

    @Test
    void concurrentCallsRunOnceAndTheRestAreSkippedNotQueued() throws Exception {
        int callers = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        List<Future<String>> calls = new ArrayList<>();
        int before = probe.jobTokens().size();
        try {
            for (int i = 0; i < callers; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    return probe.work(2_000);
                }));
            }
            start.countDown();
            int ran = 0;
            for (Future<String> call : calls) {
                if ("ran".equals(call.get())) {
                    ran++;
                }
            }
            assertEquals(1, ran, "callers that ran the fenced method while another held it");
            assertEquals(1, probe.mostInside(), "the fenced method ran twice at once");
            assertEquals(before + 1, probe.jobTokens().size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCallWhileTheLockIsHeldElsewhereReturnsAtOnceWithoutRunning() throws Exception {
        FencedLease elsewhere = locks.tryAcquire(FencedProbe.JOB, Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        int before = probe.jobTokens().size();
        try {
            long started = System.nanoTime();
            assertNull(probe.work(0), "a skipped fenced method returns null");
            assertTrue(Duration.ofNanos(System.nanoTime() - started).compareTo(Duration.ofSeconds(1)) < 0,
                    "the call waited for the lock instead of skipping");
            assertEquals(before, probe.jobTokens().size(), "the method ran while another replica held its lock");
        } finally {
            elsewhere.release();
        }
        assertEquals("ran", probe.work(0));
        long token = probe.jobTokens().getLast();
        assertTrue(token > elsewhere.token(), "the method's token " + token + " follows the earlier holder's");
    }

    @Test
    void theLeaseIsOnlyAvailableInsideAFencedMethod() {
        assertThrows(IllegalStateException.class, current::get);
        assertTrue(current.find().isEmpty());
    }

    @Test
    void aScheduledFencedJobRunsWithRisingTokensAndPausesWhileAnotherReplicaHoldsIt() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> probe.scheduledTokens().size() >= 3);
        FencedLease elsewhere = locks.tryAcquire(FencedProbe.SCHEDULED_JOB, Duration.ofSeconds(30),
                Duration.ofSeconds(5)).orElseThrow();
        int whileHeld;
        try {
            Thread.sleep(300); // a tick that had started before the acquire finishes
            whileHeld = probe.scheduledTokens().size();
            Thread.sleep(1_000); // five ticks' worth
            assertEquals(whileHeld, probe.scheduledTokens().size(), "the job ran while another replica held its lock");
        } finally {
            elsewhere.release();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> probe.scheduledTokens().size() > whileHeld);
        List<Long> tokens = probe.scheduledTokens();
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i - 1) < tokens.get(i), "tokens out of order: " + tokens);
        }
        assertTrue(tokens.getLast() > elsewhere.token(), "the run after the other holder has a higher token");
    }
}

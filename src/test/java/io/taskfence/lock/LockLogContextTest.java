package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.jboss.logging.MDC;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.LogCapture;
import io.taskfence.testing.TestServers;

/** A fenced job's lines name its lock and token in their logging context, and only while it runs. */
@QuarkusTest
@TestServers
class LockLogContextTest {

    private static final Logger LOG = Logger.getLogger(LockLogContextTest.class);

    @Inject
    FencedLocks locks;

    @Test
    void aJobLogsWithItsLockAndFenceTokenAndTheThreadIsCleanAfterwards() throws Exception {
        String name = "mdc-" + UUID.randomUUID();
        AtomicLong token = new AtomicLong();
        try (LogCapture capture = LogCapture.of(LockLogContextTest.class.getName())) {
            assertEquals(RunOutcome.COMPLETED, locks.runExclusively(name, Duration.ofSeconds(5), held -> {
                token.set(held.token());
                LOG.info("working under the lock");
            }));
            LOG.info("after the job");

            List<LogCapture.Line> lines = capture.lines();
            assertEquals(2, lines.size(), lines.toString());
            assertEquals(name, lines.get(0).mdc().get("lock"));
            assertEquals(Long.toString(token.get()), lines.get(0).mdc().get("fenceToken"));
            assertNull(lines.get(1).mdc().get("lock"), "the lock stays in the context after the job");
            assertNull(MDC.get("fenceToken"));
        }
    }
}

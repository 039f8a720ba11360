package io.taskfence.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.testing.LogCapture;
import io.taskfence.testing.TestServers;

/** A worker's lines about an attempt carry the task's id and the attempt number in their logging context. */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class)
class AttemptLogContextTest {

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueries queries;

    @Test
    void theLineAboutAFailedAttemptNamesTaskAndAttemptInItsMdc() {
        try (LogCapture capture = LogCapture.of("io.taskfence.worker")) {
            UUID id = transitions.submit(new NewTask("flaky", JsonNodeFactory.instance.objectNode().put("failTimes", 1),
                    3, 0, null, null, null)).task().id();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> queries.find(id).orElseThrow().status() == TaskStatus.SUCCEEDED);

            List<LogCapture.Line> aboutIt = capture.lines().stream()
                    .filter(line -> id.toString().equals(line.mdc().get("taskId"))).toList();
            assertEquals(1, aboutIt.size(), "one line, about the failed attempt: " + capture.lines());
            LogCapture.Line failed = aboutIt.getFirst();
            assertEquals("1", failed.mdc().get("attempt"));
            assertTrue(failed.message().contains("attempt 1 failed"), failed.message());
        }
    }
}

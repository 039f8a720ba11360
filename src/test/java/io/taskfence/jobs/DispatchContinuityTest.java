package io.taskfence.jobs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.queue.TaskQueue.Message;
import io.taskfence.queue.TaskQueue;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.TestServers;

/**
 * A dispatch run ends when its interval is over, and the tick that fell during it was skipped. While tasks are
 * still due, the next run must follow at once, not at the tick after next: otherwise the workers empty the
 * queue and idle for up to an interval in every two (the drain benchmark showed the queue empty about a quarter
 * of the time).
 * <p>
 * The test is the only consumer: it takes one message every 50 ms while dispatch keeps a queue of at most 20
 * (refilled at 10 or fewer, so at least half a second of messages waits). With a 3-second interval the test
 * crosses two run boundaries; a skipped tick would leave the queue empty for about two seconds.
 */
@QuarkusTest
@TestServers
@TestProfile(DispatchContinuityTest.SlowConsumer.class)
class DispatchContinuityTest {

    public static final class SlowConsumer implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.dispatch.enabled", "true",
                    "taskfence.dispatch.interval", "3s",
                    "taskfence.dispatch.batch-size", "10",
                    "taskfence.dispatch.max-queue-depth", "20",
                    // Only dispatch moves tasks here: recovery would take the test's slow claims for lost.
                    "taskfence.recovery.interval", "1h");
        }
    }

    private static final String CONSUMER = "dispatch-continuity-test";
    private static final Duration TAKE_EVERY = Duration.ofMillis(50);
    private static final Duration CONSUMING = Duration.ofSeconds(7);

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskQueue queue;
    @Inject
    DataSource db;

    private final List<UUID> submitted = new ArrayList<>();

    @Test
    void whileTasksAreDueTheQueueNeverRunsDryBetweenRuns() throws Exception {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            tasks.add(new NewTask("noop", JsonNodeFactory.instance.objectNode(), 3, 0, null, null, null));
        }
        queue.ensureGroup(); // no worker runs here to create it
        transitions.submitAll(tasks).forEach(task -> submitted.add(((Submission) task).task().id()));
        await().atMost(Duration.ofSeconds(20)).until(() -> queue.depth() >= 10);

        int taken = 0;
        List<String> dryReads = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + CONSUMING.toNanos();
        while (System.nanoTime() - end < 0) {
            List<Message> read = queue.read(CONSUMER, 1, Duration.ofMillis(10));
            if (read.isEmpty()) {
                if (transitions.anyDue()) {
                    dryReads.add(String.format("%.2f s", (System.nanoTime() - start) / 1e9));
                }
            } else {
                for (Claim claim : transitions.claim(read.stream().flatMap(message -> message.taskIds().stream()).toList(), CONSUMER,
                        Duration.ofMinutes(1))) {
                    transitions.complete(claim, null);
                }
                queue.done(read);
                taken += read.size();
            }
            Thread.sleep(TAKE_EVERY);
        }
        assertTrue(taken >= 60, "took only " + taken + " messages in " + CONSUMING);
        assertEquals(List.of(), dryReads, "the queue was empty while tasks were due, at these times since the start");
    }

    /** The tasks left over would be other test classes' due tasks; the test's consumer would stay in the group. */
    @AfterEach
    void removeWhatIsLeft() {
        Sql.run(db, "delete from tasks where id = any(?)", (Object) submitted.toArray(UUID[]::new));
        queue.leave(CONSUMER);
    }
}

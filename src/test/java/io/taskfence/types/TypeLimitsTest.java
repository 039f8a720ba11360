package io.taskfence.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.TaskTransitions;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.Submission;
import io.taskfence.task.transition.Claim;
import io.taskfence.testing.TestServers;

/**
 * Dispatch holds the task types to their limits and pauses (DESIGN.md, "Configuration", "Type limits"), batch by batch:
 * {@code sleep} at most 2 in flight, {@code flaky} at most 3 started a minute, {@code noop} and {@code http}
 * unlimited. The test calls {@link TaskTransitions#enqueueDue} itself (dispatch is off) and moves the time of
 * the rate's window by ageing its records, so nothing races the clock.
 */
@QuarkusTest
@TestServers
@TestProfile(TypeLimitsTest.Limited.class)
class TypeLimitsTest {

    public static final class Limited implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("taskfence.types.sleep.max-concurrency", "2",
                    "taskfence.types.flaky.rate", "3/m",
                    // For ConcurrencyGroupsTest: tasks without a concurrency key are not held by it.
                    "taskfence.types.http.max-per-key", "1",
                    "taskfence.types.noop.max-per-key", "2",
                    "taskfence.types.sleep.max-per-key", "1");
        }
    }

    private static final Duration LEASE = Duration.ofMinutes(5);

    @Inject
    TaskTransitions transitions;
    @Inject
    TaskTypes types;
    @Inject
    DataSource db;

    private final String lock = "limits-" + UUID.randomUUID();
    private long token = 1;

    /** Other test classes share the table: their unfinished tasks would take places in a batch or count in flight. */
    @BeforeEach
    @AfterEach
    void onlyThisTestsTasksAreUnfinished() {
        Sql.run(db, "update tasks set status = 'CANCELLED' where status in ('PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED')");
        Sql.run(db, "delete from type_starts");
        Sql.run(db, "delete from paused_types");
    }

    @Test
    void aTypeLimitedToTwoAtOnceGetsTwoPlacesAndTheOthersTheRestOfTheBatch() {
        List<UUID> sleeps = submit("sleep", 10, 100); // ahead of the others in priority
        List<UUID> noops = submit("noop", 10, 0);

        List<UUID> batch = enqueueDue(5);
        assertEquals(2, batch.stream().filter(sleeps::contains).count(), "sleep tasks in a batch of 5: " + batch);
        assertEquals(3, batch.stream().filter(noops::contains).count(), "the unlimited type took the other places");
        List<UUID> next = enqueueDue(100);
        assertEquals(0, next.stream().filter(sleeps::contains).count(), "a third sleep task went while two were in flight");
        assertEquals(7, next.stream().filter(noops::contains).count());

        // Claimed (PROCESSING) they still count; finished, each makes room for one more.
        List<Claim> running = transitions.claim(batch.stream().filter(sleeps::contains).toList(), "limits-test", LEASE);
        assertEquals(2, running.size());
        assertEquals(List.of(), enqueueDue(100));
        assertTrue(transitions.complete(running.get(0), null));
        List<UUID> third = enqueueDue(100);
        assertEquals(1, third.size(), "after one of two finished: " + third);
        assertTrue(sleeps.contains(third.getFirst()));
        transitions.fail(running.get(1), "boom", true, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertEquals(1, enqueueDue(100).size(), "a failed attempt leaves the limit too");
        assertEquals(6, pending(sleeps));
        assertEquals(2L, state("sleep").inFlight());
    }

    @Test
    void aPausedTypesTasksStayPendingWhileOthersGoAndGoOnceResumed() {
        List<UUID> https = submit("http", 5, 100);
        List<UUID> noops = submit("noop", 5, 0);
        assertTrue(types.pause("http", "test"));
        assertFalse(types.pause("http", "test"), "pausing a paused type changes nothing");
        assertTrue(state("http").paused());

        List<UUID> batch = enqueueDue(100);
        assertEquals(noops.stream().sorted().toList(), batch.stream().sorted().toList(), "only the unpaused type went");
        assertEquals(5, pending(https));
        assertFalse(transitions.anyDue(), "a paused type's tasks count as due");

        assertTrue(types.resume("http"));
        assertFalse(types.resume("http"));
        assertEquals(https.stream().sorted().toList(), enqueueDue(100).stream().sorted().toList());
    }

    @Test
    void aPausedLimitedTypeGetsNoPlaceThoughItHasRoom() {
        List<UUID> sleeps = submit("sleep", 3, 0);
        types.pause("sleep", "test");
        assertEquals(List.of(), enqueueDue(100));
        types.resume("sleep");
        assertEquals(2, enqueueDue(100).stream().filter(sleeps::contains).count());
    }

    @Test
    void aRateLimitedTypeStartsNoMoreThanItsRateInAWindow() {
        List<UUID> flakies = submit("flaky", 10, 0);
        List<UUID> first = enqueueDue(100);
        assertEquals(3, first.size(), "3/m in one batch: " + first);
        // Queued, they may start at any moment: they count.
        assertEquals(List.of(), enqueueDue(100), "a fourth while three are queued");
        assertEquals(3L, state("flaky").rateUsed());
        // Started, then finished, they still count: the rate counts starts, not tasks in flight.
        transitions.claim(first, "limits-test", LEASE).forEach(claim -> transitions.complete(claim, null));
        assertEquals(List.of(), enqueueDue(100), "a fourth start within the minute");
        assertEquals(3L, state("flaky").rateUsed());
        assertEquals(3L, Sql.count(db, "select coalesce(sum(tasks), 0) from type_starts where type = 'flaky'"),
                "the claims recorded their starts");

        // A minute later (its records aged past the window) three more may go.
        Sql.run(db, "update type_starts set at = at - interval '61 seconds'");
        assertEquals(0L, state("flaky").rateUsed());
        List<UUID> second = enqueueDue(100);
        assertEquals(3, second.size());
        assertTrue(flakies.containsAll(first) && flakies.containsAll(second));
        assertEquals(List.of(), enqueueDue(100));
    }

    @Test
    void aBatchAndAPauseNeverOverlapSoABatchAfterThePauseSeesIt() throws Exception {
        // A batch reads the paused types under a share lock held to its commit, and a pause's insert conflicts
        // with it: the two take turns. Here a pause is under way (inserted, not committed) when a batch
        // starts; the batch must wait for it and then leave the paused type's tasks alone.
        List<UUID> noops = submit("noop", 2, 0);
        try (Connection pause = db.getConnection()) {
            pause.setAutoCommit(false);
            try (Statement statement = pause.createStatement()) {
                statement.execute("insert into paused_types (type, paused_by) values ('noop', 'test')");
            }
            CompletableFuture<List<UUID>> batch = CompletableFuture.supplyAsync(() -> enqueueDue(100));
            try {
                List<UUID> early = batch.get(500, TimeUnit.MILLISECONDS);
                throw new AssertionError("a batch ran while a pause was under way: " + early);
            } catch (TimeoutException expected) {
                // waiting for the pause
            }
            pause.commit();
            assertEquals(0, batch.get(10, TimeUnit.SECONDS).stream().filter(noops::contains).count(),
                    "the batch after the pause enqueued the paused type");
        }
        assertEquals(2, pending(noops));
    }

    private List<UUID> enqueueDue(int limit) {
        return transitions.enqueueDue(TaskFixtures.fence(lock, token), limit);
    }

    private List<UUID> submit(String type, int count, int priority) {
        List<NewTask> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tasks.add(new NewTask(type, JsonNodeFactory.instance.objectNode().put("n", i), 1, priority, null, null, null));
        }
        return transitions.submitAll(tasks).stream().map(submitted -> ((Submission) submitted).task().id()).toList();
    }

    private TypeState state(String type) {
        return types.all().stream().filter(state -> state.type().equals(type)).findFirst().orElseThrow();
    }

    private long pending(List<UUID> ids) {
        return Sql.count(db, "select count(*) from tasks where status = 'PENDING' and id = any(?::uuid[])",
                ids.stream().map(UUID::toString).toList().toString().replace('[', '{').replace(']', '}'));
    }
}

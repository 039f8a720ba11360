package io.taskfence.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.schedule.CronType;
import io.taskfence.schedule.FirePlan;
import io.taskfence.schedule.Misfire;
import io.taskfence.schedule.Schedule;
import io.taskfence.schedule.Schedules;
import io.taskfence.store.FenceToken;
import io.taskfence.store.StaleFenceException;
import io.taskfence.task.Sql;
import io.taskfence.task.submit.NewTask;
import io.taskfence.task.submit.outcome.OccurrenceTasks;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * The schedules job against the real PostgreSQL, with time given rather than waited for: every run is handed
 * its "now", years ahead, so that the tasks it makes are never due for the other tests' dispatch fixtures.
 * Each occurrence is one task, whoever runs the job, however often, and with whatever token.
 */
@QuarkusTest
@TestServers
class ScheduleOccurrencesTest {

    /** A Monday, long after the test run: nothing made here is ever due. */
    private static final Instant T = Instant.parse("2035-01-01T00:00:00Z");

    @Inject
    ScheduleOccurrences materialiser;
    @Inject
    Schedules schedules;
    @Inject
    DataSource db;
    @Inject
    MeterRegistry registry;

    @BeforeEach
    void noOtherSchedules() {
        // The job takes every due schedule; those of other tests would be counted in.
        Sql.run(db, "delete from schedules");
    }

    @Test
    void eachDueOccurrenceBecomesOneTaskKeyedByTheScheduleAndTheOccurrenceRunningAtIt() {
        Schedule schedule = create("every20s-" + suffix(), "*/20 * * * * ?", Misfire.SKIP, T);
        FenceToken fence = fence(1, "a");

        // 40.5 s behind: the three occurrences are late by less than the 60 s misfire threshold.
        assertEquals(3, materialiser.materialiseDue(fence, null, T.plusMillis(40_500)));
        Map<String, Instant> tasks = tasksOf(schedule.name());
        assertEquals(Map.of(schedule.keyOf(T), T, schedule.keyOf(T.plusSeconds(20)), T.plusSeconds(20),
                schedule.keyOf(T.plusSeconds(40)), T.plusSeconds(40)), tasks);
        assertEquals("schedule:" + schedule.name() + ":2035-01-01T00:00:20Z", schedule.keyOf(T.plusSeconds(20)));
        assertEquals(1, Sql.count(db, "select count(*) from tasks where idempotency_key = ? and owner is null "
                + "and type = 'noop' and payload = '{\"from\": \"schedule\"}'::jsonb and priority = 7 and max_attempts = 2 "
                + "and status = 'PENDING'", schedule.keyOf(T)));
        assertEquals(T.plusSeconds(60), stored(schedule.name()).nextFireAt());

        assertEquals(0, materialiser.materialiseDue(fence, null, T.plusMillis(40_500)), "again: nothing new");
        assertEquals(3, tasksOf(schedule.name()).size());
    }

    /**
     * A schedule with a dedupe key (ignore): occurrences make no task while the one the key holds waits (here, years
     * ahead), then one once it was dispatched; three due at once make the first.
     */
    @Test
    void withADedupeThatIgnoresAnOccurrenceMakesNoTaskWhileTheKeysTaskWaits() {
        Schedule schedule = deduplicated("ignore-" + suffix(), NewTask.Dedupe.Mode.IGNORE);
        FenceToken fence = fence(1, "a");
        assertEquals(1, materialiser.materialiseDue(fence, null, T.plusMillis(40_500)));
        assertEquals(Map.of(schedule.keyOf(T), T), tasksOf(schedule.name()));
        assertEquals(0, materialiser.materialiseDue(fence, null, T.plusMillis(60_500)), "the key's task waits");
        assertEquals(T.plusSeconds(80), stored(schedule.name()).nextFireAt(), "the schedule moved on all the same");
        Sql.run(db, "update tasks set enqueues = 1 where idempotency_key = ?", schedule.keyOf(T));
        assertEquals(1, materialiser.materialiseDue(fence, null, T.plusMillis(80_500)), "dispatched: a new task");
        assertEquals(Map.of(schedule.keyOf(T), T, schedule.keyOf(T.plusSeconds(80)), T.plusSeconds(80)),
                tasksOf(schedule.name()));
    }

    /** A schedule's timeout goes to each task it makes, as a submission's timeout; without one, its tasks have none. */
    @Test
    void aSchedulesTimeoutIsWhatItsTasksAskForTheirAttempts() {
        Schedule timed = schedules.create(new Schedule("timed-" + suffix(), "*/20 * * * * ?",
                CronType.detect("*/20 * * * * ?"), ZoneOffset.UTC, "noop", JsonNodeFactory.instance.objectNode(), 0, 2,
                false, Misfire.SKIP, T, 0, null, null, null).timingOutAfter(Duration.ofSeconds(30))).orElseThrow();
        assertEquals(Duration.ofSeconds(30), stored(timed.name()).timeout());
        Schedule untimed = create("untimed-" + suffix(), "*/20 * * * * ?", Misfire.SKIP, T);
        assertEquals(2, materialiser.materialiseDue(fence(1, "a"), null, T.plusMillis(500)));
        assertEquals("30000", Sql.value(db, "select timeout_ms from tasks where idempotency_key = ?", timed.keyOf(T)));
        assertNull(Sql.value(db, "select timeout_ms from tasks where idempotency_key = ?", untimed.keyOf(T)));
    }

    /** With replace, the last occurrence is made, and a later one moves the waiting task to its time. */
    @Test
    void withADedupeThatReplacesALaterOccurrenceMovesTheKeysTaskToIt() {
        Schedule schedule = deduplicated("replace-" + suffix(), NewTask.Dedupe.Mode.REPLACE);
        FenceToken fence = fence(1, "a");
        assertEquals(1, materialiser.materialiseDue(fence, null, T.plusMillis(40_500)));
        assertEquals(Map.of(schedule.keyOf(T.plusSeconds(40)), T.plusSeconds(40)), tasksOf(schedule.name()));
        assertEquals(0, materialiser.materialiseDue(fence, null, T.plusMillis(60_500)));
        assertEquals(Map.of(schedule.keyOf(T.plusSeconds(40)), T.plusSeconds(60)), tasksOf(schedule.name()));
        assertEquals("replaced (dedupe key schedule:" + schedule.name() + "): runAt 2035-01-01T00:01:00.000Z",
                Sql.value(db, "select note from task_event_log where task_id = (select id from tasks "
                        + "where idempotency_key = ?)", schedule.keyOf(T.plusSeconds(40))));
    }

    @Test
    void oneRunTakesMoreDueSchedulesThanOneBatch() {
        int count = ScheduleOccurrences.BATCH + 50;
        for (int i = 0; i < count; i++) {
            create("many-" + i + "-" + suffix(), "* * * * *", Misfire.SKIP, T);
        }
        assertEquals(count, materialiser.materialiseDue(fence(1, "a"), null, T.plusMillis(1)));
        assertEquals(count, Sql.count(db, "select count(*) from schedules where next_fire_at = ?",
                java.sql.Timestamp.from(T.plusSeconds(60))));
    }

    @Test
    void aPausedScheduleMakesNothing() {
        Schedule schedule = create("paused-" + suffix(), "* * * * *", Misfire.ONCE, T);
        Schedule paused = schedules.update(with(schedule, true, T)).orElseThrow();
        assertEquals(0, materialiser.materialiseDue(fence(1, "a"), null, T.plusSeconds(600)));
        assertEquals(Map.of(), tasksOf(schedule.name()));
        assertEquals(T, stored(paused.name()).nextFireAt());
    }

    @Test
    void twoReplicasRunningTheJobAtOnceMakeEachOccurrenceExactlyOnce() throws Exception {
        int count = 20;
        int rounds = 10;
        List<Schedule> made = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            made.add(create("race-" + i + "-" + suffix(), "* * * * *", i % 2 == 0 ? Misfire.SKIP : Misfire.ONCE, T));
        }
        ExecutorService replicas = Executors.newFixedThreadPool(2);
        AtomicInteger refused = new AtomicInteger();
        try {
            for (int round = 0; round < rounds; round++) {
                Instant now = T.plusSeconds(60L * round).plusMillis(500);
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<?>> runs = new ArrayList<>();
                // Each round a newer token for each replica, as each new hold of the lock gets; the two overlap
                // as a replica that lost its lease unknowingly overlaps its successor.
                for (String holder : List.of("a", "b")) {
                    FenceToken fence = fence(2L * round + (holder.equals("a") ? 1 : 2), holder);
                    runs.add(replicas.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        try {
                            materialiser.materialiseDue(fence, null, now);
                        } catch (StaleFenceException e) {
                            refused.incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> run : runs) {
                    run.get(60, TimeUnit.SECONDS);
                }
            }
        } finally {
            replicas.shutdownNow();
        }
        Map<String, Long> perKey = new HashMap<>();
        Sql.rows(db, "select idempotency_key, count(*) from tasks where idempotency_key like 'schedule:race-%' group by 1",
                row -> perKey.put(row.getString(1), row.getLong(2)));
        for (Schedule schedule : made) {
            for (int minute = 0; minute < rounds; minute++) {
                String key = schedule.keyOf(T.plusSeconds(60L * minute));
                assertEquals(1L, perKey.getOrDefault(key, 0L), key);
            }
        }
        assertEquals((long) count * rounds, perKey.size(), "no task for any other occurrence: " + perKey.keySet());
        System.out.printf("two replicas, %d rounds: %d runs refused by the fence%n", rounds, refused.get());
    }

    @Test
    void aStaleTokenMakesNothingAndLeavesTheScheduleWhereItWas() {
        FenceToken successor = fence(5, "b");
        Schedule first = create("first-" + suffix(), "* * * * *", Misfire.SKIP, T);
        assertEquals(1, materialiser.materialiseDue(successor, null, T.plusMillis(1)));
        Schedule second = create("second-" + suffix(), "* * * * *", Misfire.SKIP, T);

        FenceToken stale = new FenceToken(successor.lock(), 4, "a");
        assertThrows(StaleFenceException.class, () -> materialiser.materialiseDue(stale, null, T.plusSeconds(60).plusMillis(1)));
        assertEquals(Map.of(), tasksOf(second.name()));
        assertEquals(T, stored(second.name()).nextFireAt());
        assertEquals(1, tasksOf(first.name()).size());
        // The same number from another holder (Redis lost its counter and handed it out again) is refused too.
        FenceToken reissued = new FenceToken(successor.lock(), 5, "c");
        assertThrows(StaleFenceException.class, () -> materialiser.materialiseDue(reissued, null, T.plusSeconds(60).plusMillis(1)));
        assertEquals(Map.of(), tasksOf(second.name()));
    }

    @Test
    void aMaterialisationFromAnOlderReadOfTheScheduleChangesNothing() {
        Schedule read = create("edited-" + suffix(), "* * * * *", Misfire.SKIP, T);
        // An edit commits between the job's read and its write.
        Schedule edited = schedules.update(with(read, false, T.plusSeconds(60))).orElseThrow();
        FirePlan plan = FirePlan.of(read.times(), T, T.plusMillis(1), Duration.ofSeconds(60), Misfire.SKIP, 1000);
        assertEquals(OccurrenceTasks.NONE, schedules.materialise(fence(1, "a"), read, plan));
        assertEquals(Map.of(), tasksOf(read.name()));
        assertEquals(edited.version(), stored(read.name()).version());
        assertEquals(T.plusSeconds(60), stored(read.name()).nextFireAt());
    }

    @Test
    void anOccurrenceMadeAlreadyIsNotMadeAgainWhenAnEditMovesTheScheduleBack() {
        Schedule schedule = create("moved-back-" + suffix(), "*/20 * * * * ?", Misfire.SKIP, T);
        FenceToken fence = fence(1, "a");
        assertEquals(2, materialiser.materialiseDue(fence, null, T.plusMillis(20_001)));
        schedules.update(with(stored(schedule.name()), false, T)).orElseThrow();

        assertEquals(1, materialiser.materialiseDue(fence, null, T.plusMillis(40_001)), "only 00:00:40 is new");
        assertEquals(3, tasksOf(schedule.name()).size());
        assertEquals(T.plusSeconds(60), stored(schedule.name()).nextFireAt());
    }

    @Test
    void afterATenMinuteOutageSkipMakesTheOnTimeOccurrenceOnlyAndOnceOneMoreForTheMissed() {
        Schedule skip = create("outage-skip-" + suffix(), "* * * * *", Misfire.SKIP, T);
        Schedule once = create("outage-once-" + suffix(), "* * * * *", Misfire.ONCE, T);
        // Down from just before 00:00 to 00:10:30: 00:00 to 00:09 are more than the 60 s threshold late.
        Instant now = T.plusSeconds(630);

        assertEquals(3, materialiser.materialiseDue(fence(1, "a"), null, now));
        assertEquals(Map.of(skip.keyOf(T.plusSeconds(600)), T.plusSeconds(600)), tasksOf(skip.name()));
        assertEquals(Map.of(once.keyOf(T.plusSeconds(540)), T.plusSeconds(540), once.keyOf(T.plusSeconds(600)),
                T.plusSeconds(600)), tasksOf(once.name()), "one task for the ten missed, keyed by the last of them");
        assertEquals(T.plusSeconds(660), stored(skip.name()).nextFireAt());
        assertEquals(T.plusSeconds(660), stored(once.name()).nextFireAt());

        assertEquals(2, materialiser.materialiseDue(fence(1, "a"), null, T.plusSeconds(660)), "then on as usual");
    }

    @Test
    void aSchedulesOccurrencesAreItsOwnersTasksHeldToItsQuota() {
        String owner = ApiKeysForTests.QUOTA_KEY_NAME; // at most 3 unfinished
        Sql.run(db, "delete from tasks where owner = '" + owner + "'");
        try {
            Schedule schedule = create("owned-" + suffix(), "*/10 * * * * ?", Misfire.SKIP, T, owner);
            // Five on-time occurrences, 00:00 to 00:40: three fit the quota, the two after them are not made.
            assertEquals(3, materialiser.materialiseDue(fence(1, "a"), null, T.plusSeconds(41)));
            assertEquals(Map.of(schedule.keyOf(T), T, schedule.keyOf(T.plusSeconds(10)), T.plusSeconds(10),
                    schedule.keyOf(T.plusSeconds(20)), T.plusSeconds(20)), tasksOf(schedule.name()));
            assertEquals(3L, Sql.count(db, "select count(*) from tasks where owner = '" + owner
                    + "' and idempotency_key like 'schedule:%'"), "the occurrences are the owner's tasks");
            assertEquals(T.plusSeconds(50), stored(schedule.name()).nextFireAt(), "it moved on past the two left out");
            assertEquals(2.0, registry.find("taskfence.schedules.over.quota").tag("schedule", schedule.name())
                    .counter().count(), "the occurrences left out are counted");

            // An edit moves it back to 00:00: the three made already take no room, so 00:50 is not made either.
            schedules.update(with(stored(schedule.name()), false, T)).orElseThrow();
            assertEquals(0, materialiser.materialiseDue(fence(1, "a"), null, T.plusSeconds(41)));
            assertEquals(4.0, registry.find("taskfence.schedules.over.quota").tag("schedule", schedule.name())
                    .counter().count(), "00:30 and 00:40 again, not the three made already");
            schedules.update(with(stored(schedule.name()), false, T.plusSeconds(50))).orElseThrow();

            // One finishes: the next occurrence is made.
            Sql.run(db, "update tasks set status = 'CANCELLED' where idempotency_key = '" + schedule.keyOf(T) + "'");
            assertEquals(1, materialiser.materialiseDue(fence(1, "a"), null, T.plusSeconds(51)));
            assertEquals(T.plusSeconds(50), tasksOf(schedule.name()).get(schedule.keyOf(T.plusSeconds(50))));
        } finally {
            Sql.run(db, "delete from tasks where owner = '" + owner + "'");
        }
    }

    // ---- plumbing

    private Schedule create(String name, String cron, Misfire misfire, Instant nextFireAt) {
        return create(name, cron, misfire, nextFireAt, null);
    }

    private Schedule create(String name, String cron, Misfire misfire, Instant nextFireAt, String owner) {
        return schedules.create(new Schedule(name, cron, CronType.detect(cron), ZoneOffset.UTC, "noop",
                JsonNodeFactory.instance.objectNode().put("from", "schedule"), 7, 2, false, misfire, nextFireAt, 0, null,
                null, owner)).orElseThrow();
    }

    private Schedule deduplicated(String name, NewTask.Dedupe.Mode mode) {
        return schedules.create(new Schedule(name, "*/20 * * * * ?", CronType.detect("*/20 * * * * ?"), ZoneOffset.UTC,
                "noop", JsonNodeFactory.instance.objectNode().put("from", "schedule"), 7, 2, false, Misfire.SKIP, T, 0,
                null, null, null).deduplicatedBy(new NewTask.Dedupe("schedule:" + name, mode, null, null))).orElseThrow();
    }

    private static Schedule with(Schedule schedule, boolean paused, Instant nextFireAt) {
        return new Schedule(schedule.name(), schedule.cron(), schedule.cronType(), schedule.zone(), schedule.type(),
                schedule.payload(), schedule.priority(), schedule.maxAttempts(), paused, schedule.misfire(), nextFireAt,
                schedule.version(), schedule.createdAt(), schedule.updatedAt(), schedule.owner());
    }

    private Schedule stored(String name) {
        return schedules.find(name).orElseThrow();
    }

    /** The schedule's tasks: idempotency key → run_at. */
    private Map<String, Instant> tasksOf(String name) {
        Map<String, Instant> tasks = new HashMap<>();
        Sql.rows(db, "select idempotency_key, run_at from tasks where idempotency_key like 'schedule:" + name + ":%'",
                row -> tasks.put(row.getString(1), row.getTimestamp(2).toInstant()));
        return tasks;
    }

    /** A lock of this test's own, so that tokens of other tests' runs do not count. */
    private final String lock = "schedules-test-" + UUID.randomUUID();

    private FenceToken fence(long token, String holder) {
        return new FenceToken(lock, token, holder + ":" + token);
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}

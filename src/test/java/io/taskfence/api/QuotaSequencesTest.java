package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.schedule.CronType;
import io.taskfence.schedule.FirePlan;
import io.taskfence.schedule.Misfire;
import io.taskfence.schedule.Schedule;
import io.taskfence.schedule.Schedules;
import io.taskfence.task.Sql;
import io.taskfence.task.TaskFixtures;
import io.taskfence.task.submit.outcome.OccurrenceTasks;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.sessions.JqwikSession;

/**
 * Property: no sequence of submissions, batches, cancels, retries, tasks giving up and schedule runs takes a key past its quota,
 * and none is refused while there is room: each answer is the one a model of the key's unfinished tasks
 * predicts, and the table agrees with the model after every step. Sequences come from jqwik's generators drawn
 * here (as in {@link HostileInputPropertiesTest}); a failure names its seed: {@code -Dquota.seed=<seed>}.
 */
@QuarkusTest
@TestServers
class QuotaSequencesTest {

    private static final long SEED = Long.getLong("quota.seed", new Random().nextLong());
    private static final int SEQUENCES = Integer.getInteger("quota.sequences", 8);
    private static final String OWNER = ApiKeysForTests.QUOTA_KEY_NAME;
    private static final int LIMIT = ApiKeysForTests.QUOTA_LIMIT;
    private static final String TASK = "{\"type\":\"noop\",\"payload\":{}}";

    enum Kind { SUBMIT, BATCH, CANCEL, RETRY, GIVE_UP, SCHEDULE }

    /** When a schedule's occurrences are due: long after the run, so that none is dispatched meanwhile. */
    private static final Instant FAR = Instant.parse("2035-01-01T00:00:00Z");

    /** One step: what, how many tasks (a batch) and which of the candidates (cancel, retry, give up). */
    record Step(Kind kind, int tasks, int pick) {
    }

    @Inject
    DataSource db;
    @Inject
    Schedules schedules;

    private final String lock = "quota-sequences-" + UUID.randomUUID();

    @BeforeAll
    static void sayTheSeed() {
        System.out.printf("QuotaSequencesTest: -Dquota.seed=%d%n", SEED);
    }

    /** Only the quota tests use the quota key; each sequence starts with none of its tasks unfinished. */
    @BeforeEach
    void finishEveryTaskOfTheKey() {
        Sql.run(db, "update tasks set status = 'SUCCEEDED' where owner = ? and status <> 'SUCCEEDED'", OWNER);
    }

    @AfterEach
    void deleteTheSchedules() {
        Sql.run(db, "delete from schedules where owner = ?", OWNER);
    }

    @Test
    void noSequenceOfSubmitCancelRetryOrScheduleRunPassesTheQuotaOrIsRefusedWithRoomLeft() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(1, LIMIT + 1),
                Arbitraries.integers().between(0, 7)).as(Step::new);
        Arbitrary<List<Step>> sequences = step.list().ofMinSize(5).ofMaxSize(25);
        JqwikSession.start(); // jqwik's generators outside its engine need a session of their own
        try {
            var generator = sequences.generator(100);
            Random random = new Random(SEED);
            int refusals = 0;
            for (int n = 0; n < SEQUENCES; n++) {
                finishEveryTaskOfTheKey();
                List<Step> sequence = generator.next(random).value();
                refusals += run(sequence, "seed " + SEED + ", sequence " + n + ": " + sequence);
            }
            assertTrue(refusals > 0, "no step met the quota: the property proved nothing (seed " + SEED + ")");
        } finally {
            JqwikSession.finish();
        }
    }

    /** @return how many steps the quota refused */
    private int run(List<Step> sequence, String context) {
        int refusals = 0;
        for (int i = 0; i < sequence.size(); i++) {
            Step step = sequence.get(i);
            long unfinished = unfinished();
            String at = context + " at step " + i + " " + step + " with " + unfinished + " unfinished";
            switch (step.kind()) {
                case SUBMIT -> {
                    int status = given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json")
                            .body(TASK).post("/api/v1/tasks").statusCode();
                    assertEquals(unfinished < LIMIT ? 201 : 429, status, at);
                    refusals += status == 429 ? 1 : 0;
                }
                case BATCH -> {
                    String body = "{\"tasks\":[" + String.join(",", Collections.nCopies(step.tasks(), TASK)) + "]}";
                    int status = given().auth().oauth2(ApiKeysForTests.QUOTA_KEY).contentType("application/json")
                            .body(body).post("/api/v1/tasks/batch").statusCode();
                    assertEquals(unfinished + step.tasks() <= LIMIT ? 200 : 429, status, at);
                    refusals += status == 429 ? 1 : 0;
                }
                case CANCEL -> pick(step, "'PENDING', 'FAILED'").ifPresent(id -> given().auth()
                        .oauth2(ApiKeysForTests.QUOTA_KEY).post("/api/v1/tasks/" + id + "/cancel").then().statusCode(200));
                case RETRY -> {
                    Optional<String> id = pick(step, "'CANCELLED', 'DEAD'");
                    if (id.isPresent()) {
                        int status = given().auth().oauth2(ApiKeysForTests.QUOTA_KEY)
                                .post("/api/v1/tasks/" + id.get() + "/retry").statusCode();
                        assertEquals(unfinished < LIMIT ? 200 : 429, status, at);
                        refusals += status == 429 ? 1 : 0;
                    }
                }
                // A schedule of the key's (as an admin key's schedules are its own) makes occurrences in one run.
                case SCHEDULE -> {
                    Schedule schedule = schedules.create(new Schedule("quota-" + UUID.randomUUID(), "* * * * *",
                            CronType.UNIX, ZoneOffset.UTC, "noop", JsonNodeFactory.instance.objectNode(), 0, 1, false,
                            Misfire.SKIP, FAR, 0, null, null, OWNER)).orElseThrow();
                    List<Instant> times = IntStream.range(0, step.tasks()).mapToObj(k -> FAR.plusSeconds(60L * k)).toList();
                    OccurrenceTasks made = schedules.materialise(TaskFixtures.fence(lock, 1), schedule,
                            new FirePlan(times, Optional.of(FAR.plusSeconds(60L * step.tasks()))));
                    long room = Math.max(0, LIMIT - unfinished);
                    assertEquals(Math.min(step.tasks(), room), made.made().size(), at);
                    assertEquals(Math.max(0, step.tasks() - room), made.overQuota().size(), at);
                    refusals += step.tasks() > room ? 1 : 0;
                }
                // What a worker does when a task runs out of attempts: it stops counting.
                case GIVE_UP -> pick(step, "'PENDING', 'FAILED'").ifPresent(id -> Sql.run(db,
                        "update tasks set status = 'DEAD', last_error = 'gave up' where id = ?::uuid", id));
            }
            assertTrue(unfinished() <= LIMIT, at + ": the key has " + unfinished() + " unfinished tasks");
        }
        return refusals;
    }

    /** The {@code pick}-th (modulo their number) of the key's tasks in these statuses, oldest first. */
    private Optional<String> pick(Step step, String statuses) {
        List<String> ids = new ArrayList<>();
        Sql.rows(db, "select id from tasks where owner = '" + OWNER + "' and status in (" + statuses + ") "
                + "order by created_at, id", row -> ids.add(row.getString(1)));
        return ids.isEmpty() ? Optional.empty() : Optional.of(ids.get(step.pick() % ids.size()));
    }

    private long unfinished() {
        return Sql.count(db, "select count(*) from tasks where owner = ? and status in "
                + "('PENDING', 'ENQUEUED', 'PROCESSING', 'FAILED')", OWNER);
    }
}

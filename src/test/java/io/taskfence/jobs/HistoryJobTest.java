package io.taskfence.jobs;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * The history job folds finished work into per-minute rows (DESIGN.md, "History of work"): two hours of back-dated
 * tasks, each kind of history there is (the happy path the row holds, failures and deaths in the event log, an
 * operator's retry, a task that ends after the job passed it), read back through {@code GET /api/v1/stats/history};
 * counted once however often the job runs; minutes older than a day folded into hours, rows older than kept gone. The
 * job is run here by the test (dispatch is off in the test profile).
 */
@QuarkusTest
@TestServers
class HistoryJobTest {

    private static final String OWNER = ApiKeysForTests.SUBMIT_KEY_NAME;
    private static final String OTHER = ApiKeysForTests.OTHER_SUBMIT_KEY_NAME;

    @Inject
    HistoryJob job;
    @Inject
    DataSource db;

    private final String type = "history-" + UUID.randomUUID().toString().substring(0, 8);
    private final Instant base = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofHours(2));

    @BeforeEach
    void startTheHistoryAfresh() {
        Sql.run(db, "delete from work_history");
        Sql.run(db, "delete from work_history_unfinished");
        Sql.run(db, "delete from work_history_progress");
        Sql.run(db, "insert into work_history_progress default values");
    }

    @Test
    void twoHoursOfWorkAreFoldedIntoMinutesOnceAndReadBack() {
        for (int minute = 0; minute < 120; minute++) {
            Instant due = base.plus(Duration.ofMinutes(minute)).plusSeconds(5);
            succeeded(OWNER, due, due.plusMillis(100), due.plusMillis(2_100));
            if (minute % 10 == 0) {
                UUID dead = task(OTHER, "DEAD", due, null, due.plusSeconds(3));
                event(dead, due.plusSeconds(1), "PENDING", "ENQUEUED");
                event(dead, due.plusSeconds(2), "ENQUEUED", "PROCESSING");
                event(dead, due.plusSeconds(3), "PROCESSING", "DEAD");
            }
        }
        Instant t = base.plus(Duration.ofMinutes(30));
        // Failed once, then succeeded on its happy path again.
        UUID retried = succeeded(OTHER, t.plusSeconds(20), t.plusSeconds(21), t.plusSeconds(22));
        event(retried, t.plusSeconds(1), "ENQUEUED", "PROCESSING");
        event(retried, t.plusSeconds(2), "PROCESSING", "FAILED");
        // Died, retried by an operator, then succeeded.
        UUID revived = succeeded(OTHER, t.plusSeconds(40), t.plusSeconds(41), t.plusSeconds(42));
        event(revived, t.plusSeconds(1), "ENQUEUED", "PROCESSING");
        event(revived, t.plusSeconds(2), "PROCESSING", "DEAD");
        event(revived, t.plusSeconds(30), "DEAD", "PENDING");
        // Running when the job first passes it.
        UUID running = task(OTHER, "PROCESSING", t, t.plusSeconds(1), t.plusSeconds(1));

        job.run();
        Sql.run(db, "update tasks set status = 'SUCCEEDED', updated_at = ? where id = ?",
                Timestamp.from(t.plusSeconds(5)), running);
        job.run();
        job.run();

        JsonPath all = history(ApiKeysForTests.ADMIN_KEY, "type=" + type);
        assertEquals(Map.of("started", 137, "succeeded", 123, "failed", 1, "dead", 13, "cancelled", 0), totals(all));
        assertEquals(120, all.getList("points").size());
        assertEquals(base.toString(), all.getString("from"));
        JsonPath owners = history(ApiKeysForTests.ADMIN_KEY, "type=" + type + "&owner=" + OWNER);
        assertEquals(Map.of("started", 120, "succeeded", 120, "failed", 0, "dead", 0, "cancelled", 0), totals(owners));
        for (int minute = 0; minute < 120; minute++) {
            String point = "points[" + minute + "].";
            assertEquals(base.plus(Duration.ofMinutes(minute)).toString(), owners.getString(point + "at"));
            assertEquals(1, owners.getInt(point + "succeeded"), point);
            assertEquals(100, owners.getLong(point + "waitMs.max"), point);
            long p50 = owners.getLong(point + "waitMs.p50");
            assertTrue(p50 >= 100 && p50 <= 109, "a percentile is at most 9 % above: " + p50);
            assertEquals(2_000, owners.getLong(point + "runMs.max"), point);
        }
        assertEquals(120, totals(history(ApiKeysForTests.SUBMIT_KEY, "type=" + type)).get("succeeded"),
                "a submit key reads its own tasks");
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).queryParam("owner", OTHER).get("/api/v1/stats/history")
                .then().statusCode(403).body("detail", containsString("its own"));
    }

    @Test
    void minutesOlderThanADayFoldIntoHoursAndRowsOlderThanKeptGo() {
        Instant dayAgo = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(30));
        for (int minute = 0; minute < 60; minute += 7) {
            Instant due = dayAgo.plus(Duration.ofMinutes(minute));
            succeeded(OWNER, due, due.plusMillis(10), due.plusMillis(20));
        }
        Instant longAgo = Instant.now().minus(Duration.ofDays(15));
        succeeded(OWNER, longAgo, longAgo.plusMillis(10), longAgo.plusMillis(20));

        job.run();
        job.run();

        JsonPath hours = history(ApiKeysForTests.ADMIN_KEY, "type=" + type + "&from=" + dayAgo.minus(Duration.ofHours(1))
                + "&to=" + dayAgo.plus(Duration.ofHours(2)) + "&step=1h");
        assertEquals(List.of(0, 9, 0), hours.getList("points.succeeded"));
        List<Integer> minutesLeft = new java.util.ArrayList<>();
        Sql.rows(db, "select count(*) from work_history where type = '" + type + "' and bucket <> date_trunc('hour', "
                + "bucket, 'UTC')", row -> minutesLeft.add(row.getInt(1)));
        assertEquals(List.of(0), minutesLeft, "the day-old minutes were folded into their hour");
        assertEquals(0, totals(history(ApiKeysForTests.ADMIN_KEY, "type=" + type + "&from="
                + longAgo.minus(Duration.ofHours(1)) + "&to=" + longAgo.plus(Duration.ofHours(1)))).get("succeeded"),
                "older than kept (14 days)");
    }

    @Test
    void aRangeOrStepItCannotAnswerIsRefusedWithWhy() {
        for (String[] bad : new String[][] { { "step=0m", "step" }, { "step=30s", "step" }, { "step=1d", "step" },
                { "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "before" },
                { "from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z&step=1m", "at most 1440" },
                { "type=Not%20a%20type", "type" }, { "from=yesterday", "ISO-8601" } }) {
            given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).urlEncodingEnabled(false)
                    .get("/api/v1/stats/history?" + bad[0]).then().statusCode(400)
                    .contentType("application/problem+json").body("detail", containsString(bad[1]));
        }
    }

    private JsonPath history(String key, String query) {
        String range = query.contains("from=") ? "" : "&from=" + base + "&to=" + base.plus(Duration.ofHours(2));
        return given().auth().oauth2(key).urlEncodingEnabled(false).get("/api/v1/stats/history?" + query + range)
                .then().statusCode(200).extract().jsonPath();
    }

    private static Map<String, Integer> totals(JsonPath history) {
        Map<String, Integer> totals = new java.util.HashMap<>();
        for (String count : List.of("started", "succeeded", "failed", "dead", "cancelled")) {
            totals.put(count, history.getList("points." + count, Integer.class).stream().mapToInt(i -> i).sum());
        }
        return totals;
    }

    private UUID succeeded(String owner, Instant due, Instant started, Instant ended) {
        return task(owner, "SUCCEEDED", due, started, ended);
    }

    private UUID task(String owner, String status, Instant due, Instant started, Instant updated) {
        UUID id = UUID.randomUUID();
        Sql.run(db, "insert into tasks (id, type, payload, status, attempt, max_attempts, run_at, created_at, updated_at, "
                + "owner, started_at) values (?, ?, '{}', ?, 1, 3, ?, ?, ?, ?, ?)", id, type, status, Timestamp.from(due),
                Timestamp.from(due.minusSeconds(1)), Timestamp.from(updated), owner,
                started == null ? null : Timestamp.from(started));
        return id;
    }

    private void event(UUID task, Instant at, String from, String to) {
        Sql.run(db, "insert into task_event_log (task_id, at, from_status, to_status, attempt) values (?, ?, ?, ?, 1)",
                task, Timestamp.from(at), from, to);
    }
}

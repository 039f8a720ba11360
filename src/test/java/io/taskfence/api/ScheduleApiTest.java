package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/** {@code /api/v1/schedules}: what an admin creates, sees and changes, and every refusal, which changes no row. */
@QuarkusTest
@TestServers
class ScheduleApiTest {

    private final String name = "sched-" + UUID.randomUUID().toString().substring(0, 8);

    @Inject
    DataSource db;
    @TestHTTPResource(value = "/", management = true)
    URI management;

    @AfterEach
    void deleteThisTestsSchedules() {
        Sql.run(db, "delete from schedules where name like ?", name + "%");
    }

    @Test
    void aSchedulesPriorityIsHeldToItsKeysMaxPriorityAsASubmissionIs() {
        String body = "{\"name\":\"" + name + "\",\"cron\":\"*/5 * * * *\",\"type\":\"noop\",\"payload\":{},"
                + "\"priority\":" + (ApiKeysForTests.CAPPED_MAX_PRIORITY + 1) + "}";
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).contentType("application/json").body(body)
                .post("/api/v1/schedules").then().statusCode(400).body("field", is("priority"))
                .body("detail", is("priority must be at most " + ApiKeysForTests.CAPPED_MAX_PRIORITY + " for API key '"
                        + ApiKeysForTests.CAPPED_ADMIN_KEY_NAME + "' (its max-priority), not "
                        + (ApiKeysForTests.CAPPED_MAX_PRIORITY + 1)));
        admin().body(body).post("/api/v1/schedules").then().statusCode(201).body("owner", is(ApiKeysForTests.ADMIN_KEY_NAME));
    }

    @Test
    void aSchedulesDedupeIsShownChangedAndRemovedAndADebounceIsRefused() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"*/5 * * * *\",\"type\":\"noop\",\"payload\":{},"
                + "\"dedupe\":{\"mode\":\"ignore\"}}").post("/api/v1/schedules").then().statusCode(201)
                .body("dedupe.key", is("schedule:" + name)).body("dedupe.mode", is("ignore"));
        admin().body("{\"dedupe\":{\"key\":\"report\",\"mode\":\"replace\"}}").patch("/api/v1/schedules/{name}", name)
                .then().statusCode(200).body("dedupe.key", is("report")).body("dedupe.mode", is("replace"));
        admin().body("{\"priority\":3}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("dedupe.mode", is("replace"));
        admin().body("{\"dedupe\":{\"mode\":\"none\"}}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("dedupe", nullValue());
        admin().body("{\"dedupe\":{\"mode\":\"debounce\"}}").patch("/api/v1/schedules/{name}", name).then()
                .statusCode(400).body("violations[0].field", is("dedupe.mode"))
                .body("violations[0].message", is("must be ignore, replace or none"));
        admin().get("/api/v1/schedules/{name}", name).then().statusCode(200).body("dedupe", nullValue());
    }

    @Test
    void aSchedulesTimeoutIsShownChangedAndRemovedAndAZeroOrMalformedOneIsRefused() {
        String body = "{\"name\":\"" + name + "\",\"cron\":\"*/5 * * * *\",\"type\":\"noop\",\"payload\":{}";
        refused(body + ",\"timeout\":\"0s\"}", 400, "timeout", "timeout must be at least 1ms");
        violation(body + ",\"timeout\":\"30\"}", "timeout", "must be a number of seconds or milliseconds");
        violation(body + ",\"timeout\":\"none\"}", "timeout", "must be a number of seconds or milliseconds");
        admin().body(body + ",\"timeout\":\"30s\"}").post("/api/v1/schedules").then().statusCode(201)
                .body("timeout", is("30s"));
        admin().body("{\"timeout\":\"1500ms\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("timeout", is("1500ms"));
        admin().body("{\"priority\":3}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("timeout", is("1500ms"));
        admin().body("{\"timeout\":\"0ms\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(400)
                .body("field", is("timeout"));
        admin().body("{\"timeout\":\"2m\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(400)
                .body("violations[0].field", is("timeout"))
                .body("violations[0].message", is("must be a number of seconds or milliseconds, e.g. 30s or 500ms, or none"));
        admin().get("/api/v1/schedules/{name}", name).then().statusCode(200).body("timeout", is("1500ms"));
        admin().body("{\"timeout\":\"none\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("timeout", nullValue());
        assertEquals(0, Sql.count(db, "select count(*) from schedules where name = ? and timeout_ms is not null", name));
    }

    @Test
    void aCreatedScheduleShowsItsDefaultsAndNextFiveFireTimes() {
        Instant before = Instant.now();
        ValidatableResponse created = admin().body("{\"name\":\"" + name + "\",\"cron\":\"*/5 * * * *\",\"type\":\"noop\","
                + "\"payload\":{\"a\":1}}").post("/api/v1/schedules").then().statusCode(201)
                .header("Location", endsWith("/api/v1/schedules/" + name))
                .body("name", is(name)).body("cron", is("*/5 * * * *")).body("cronType", is("unix")).body("zone", is("UTC"))
                .body("type", is("noop")).body("payload.a", is(1)).body("priority", is(0)).body("maxAttempts", is(5))
                .body("paused", is(false)).body("misfire", is("skip")).body("nextFireTimes", hasSize(5))
                .body("owner", is(ApiKeysForTests.ADMIN_KEY_NAME)); // its tasks will be the key's own
        List<Instant> times = created.extract().jsonPath().getList("nextFireTimes", String.class).stream()
                .map(Instant::parse).toList();
        assertTrue(times.getFirst().isAfter(before), "the first is after the creation: " + times);
        for (int i = 1; i < times.size(); i++) {
            assertEquals(Duration.ofMinutes(5), Duration.between(times.get(i - 1), times.get(i)), times.toString());
        }
        assertEquals(0, times.getFirst().getEpochSecond() % 300, "on a multiple of five minutes: " + times);

        admin().get("/api/v1/schedules/{name}", name).then().statusCode(200).body("nextFireAt", is(times.getFirst().toString()));
        admin().get("/api/v1/schedules").then().statusCode(200).body("schedules.name", hasItem(name));
    }

    @Test
    void aQuartzExpressionFiresEverySecondAndAZoneShiftsTheWallClock() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"* * * * * ?\",\"type\":\"noop\",\"payload\":{}}")
                .post("/api/v1/schedules").then().statusCode(201).body("cronType", is("quartz"));
        List<Instant> times = admin().get("/api/v1/schedules/{name}", name).then().statusCode(200).extract().jsonPath()
                .getList("nextFireTimes", String.class).stream().map(Instant::parse).toList();
        assertEquals(Duration.ofSeconds(4), Duration.between(times.getFirst(), times.getLast()), times.toString());

        List<Instant> nine = admin().body("{\"name\":\"" + name + "-berlin\",\"cron\":\"0 9 * * *\",\"cronType\":\"unix\","
                + "\"zone\":\"Europe/Berlin\",\"type\":\"noop\",\"payload\":{}}").post("/api/v1/schedules").then()
                .statusCode(201).body("zone", is("Europe/Berlin")).extract().jsonPath().getList("nextFireTimes", String.class)
                .stream().map(Instant::parse).toList();
        for (Instant time : nine) {
            assertEquals(LocalTime.of(9, 0), time.atZone(ZoneId.of("Europe/Berlin")).toLocalTime(), nine.toString());
        }
    }

    @Test
    void badFieldsAreRefusedNamingTheFieldAndStoreNothing() {
        refused("{\"name\":\"" + name + "\",\"cron\":\"61 * * * *\",\"type\":\"noop\",\"payload\":{}}", 400, "cron",
                "not a unix cron expression");
        refused("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"cronType\":\"quartz\",\"type\":\"noop\",\"payload\":{}}",
                400, "cron", "not a quartz cron expression");
        refused("{\"name\":\"" + name + "\",\"cron\":\"0 0 0 1 1 ? 2020\",\"type\":\"noop\",\"payload\":{}}", 422, "cron",
                "does not fire after");
        refused("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"zone\":\"Mars/Olympus\",\"type\":\"noop\","
                + "\"payload\":{}}", 400, "zone", "not a time zone");
        refused("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"nosuchtype\",\"payload\":{}}", 422, "type",
                "no handler for task type 'nosuchtype'");
        refused("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":[1]}", 400, "payload",
                "must be a JSON object");
        refused("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{\"big\":\""
                + "x".repeat(70_000) + "\"}}", 413, "payload", "at most 65536");
        violation("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"cronType\":\"cronie\",\"type\":\"noop\",\"payload\":{}}",
                "cronType", "must be unix or quartz");
        violation("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{},\"misfire\":\"all\"}",
                "misfire", "must be skip or once");
        violation("{\"name\":\"Bad Name\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{}}", "name", "must match");
        violation("{\"name\":\"" + name + "\",\"type\":\"noop\",\"payload\":{}}", "cron", "must not be null");
        violation("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{},\"maxAttempts\":0}",
                "maxAttempts", "");
        assertEquals(0, Sql.count(db, "select count(*) from schedules where name like ?", name + "%"));
    }

    @Test
    void aTakenNameIs409AndLeavesTheScheduleAsItWas() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{\"v\":1}}")
                .post("/api/v1/schedules").then().statusCode(201);
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"0 4 * * *\",\"type\":\"noop\",\"payload\":{\"v\":2}}")
                .post("/api/v1/schedules").then().statusCode(409).contentType("application/problem+json")
                .body("field", is("name")).body("detail", containsString("exists already"));
        admin().get("/api/v1/schedules/{name}", name).then().body("cron", is("0 3 * * *")).body("payload.v", is(1));
    }

    @Test
    void anUnknownScheduleIs404ForEveryMethod() {
        admin().get("/api/v1/schedules/{name}", name).then().statusCode(404).contentType("application/problem+json")
                .body("detail", containsString("no schedule named '" + name + "'"));
        admin().body("{\"paused\":true}").patch("/api/v1/schedules/{name}", name).then().statusCode(404);
        admin().delete("/api/v1/schedules/{name}", name).then().statusCode(404);
        admin().get("/api/v1/schedules/{name}", "Not A Name").then().statusCode(404);
    }

    @Test
    void onlyAnAdminKeyMayTouchSchedules() {
        String body = "{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{}}";
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body(body)
                .post("/api/v1/schedules").then().statusCode(403).contentType("application/problem+json")
                .body("detail", containsString("schedules need an admin key"));
        given().contentType("application/json").body(body).post("/api/v1/schedules").then().statusCode(401);
        assertEquals(0, Sql.count(db, "select count(*) from schedules where name = ?", name));

        admin().body(body).post("/api/v1/schedules").then().statusCode(201);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/schedules").then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/schedules/{name}", name).then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).contentType("application/json").body("{\"paused\":true}")
                .patch("/api/v1/schedules/{name}", name).then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).delete("/api/v1/schedules/{name}", name).then().statusCode(403);
        admin().get("/api/v1/schedules/{name}", name).then().statusCode(200).body("paused", is(false));
    }

    @Test
    void patchPausesResumesAndRecomputesTheNextOccurrenceOnlyWhenTheTimingChanges() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{\"v\":1}}")
                .post("/api/v1/schedules").then().statusCode(201);
        String next = admin().get("/api/v1/schedules/{name}", name).then().extract().path("nextFireAt");
        // Moved back behind the API's back: an edit of the payload alone keeps the schedule's place.
        Sql.run(db, "update schedules set next_fire_at = next_fire_at - interval '1 day' where name = ?", name);
        String earlier = Instant.parse(next).minus(Duration.ofDays(1)).toString();
        admin().body("{\"payload\":{\"v\":2},\"priority\":3}").patch("/api/v1/schedules/{name}", name).then()
                .statusCode(200).body("payload.v", is(2)).body("priority", is(3)).body("nextFireAt", is(earlier));
        admin().body("{\"payload\":null,\"cron\":null,\"maxAttempts\":9}").patch("/api/v1/schedules/{name}", name).then()
                .statusCode(200).body("payload.v", is(2)).body("cron", is("0 3 * * *")).body("maxAttempts", is(9))
                .body("nextFireAt", is(earlier));

        admin().body("{\"paused\":true}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("paused", is(true)).body("nextFireAt", nullValue()).body("nextFireTimes", empty());
        admin().body("{\"paused\":false}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("paused", is(false)).body("nextFireAt", is(next)).body("nextFireTimes", hasSize(5));

        admin().body("{\"cron\":\"0 0 12 ? * MON\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("cronType", is("quartz")).body("cron", is("0 0 12 ? * MON"));
        String monday = admin().get("/api/v1/schedules/{name}", name).then().extract().path("nextFireAt");
        assertEquals("MONDAY 12:00", Instant.parse(monday).atZone(ZoneId.of("UTC")).getDayOfWeek() + " "
                + Instant.parse(monday).atZone(ZoneId.of("UTC")).toLocalTime());
    }

    @Test
    void aScheduleWhoseCronHasRunOutCanBePausedAndEditedButNotResumed() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"0 0 0 1 1 ? 2099\",\"type\":\"noop\",\"payload\":{}}")
                .post("/api/v1/schedules").then().statusCode(201);
        // As its last occurrence leaves it: one year's expression, that year gone by, nothing more to come.
        Sql.run(db, "update schedules set cron = '0 0 0 1 1 ? 2020', next_fire_at = null where name = ?", name);

        admin().body("{\"paused\":true}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("paused", is(true));
        admin().body("{\"priority\":4}").patch("/api/v1/schedules/{name}", name).then().statusCode(200)
                .body("priority", is(4)).body("nextFireAt", nullValue());
        long version = Sql.count(db, "select version from schedules where name = ?", name);
        admin().body("{\"paused\":false}").patch("/api/v1/schedules/{name}", name).then().statusCode(422)
                .body("field", is("cron")).body("detail", containsString("does not fire after"));
        assertEquals(version, Sql.count(db, "select version from schedules where name = ?", name));
    }

    @Test
    void aBadPatchIsRefusedAndChangesNothing() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{}}")
                .post("/api/v1/schedules").then().statusCode(201);
        long version = Sql.count(db, "select version from schedules where name = ?", name);
        admin().body("{\"cron\":\"0 3 * *\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(400)
                .body("field", is("cron"));
        admin().body("{\"zone\":\"Nowhere/Land\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(400)
                .body("field", is("zone"));
        admin().body("{\"type\":\"nosuchtype\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(422)
                .body("field", is("type"));
        admin().body("{\"payload\":\"text\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(400)
                .body("field", is("payload"));
        admin().body("{\"name\":\"other\"}").patch("/api/v1/schedules/{name}", name).then().statusCode(400)
                .body("field", is("name")).body("detail", containsString("unknown field"));
        assertEquals(version, Sql.count(db, "select version from schedules where name = ?", name));
    }

    @Test
    void deleteRemovesTheSchedule() {
        admin().body("{\"name\":\"" + name + "\",\"cron\":\"0 3 * * *\",\"type\":\"noop\",\"payload\":{}}")
                .post("/api/v1/schedules").then().statusCode(201);
        admin().delete("/api/v1/schedules/{name}", name).then().statusCode(204);
        admin().get("/api/v1/schedules/{name}", name).then().statusCode(404);
        admin().get("/api/v1/schedules").then().statusCode(200).body("schedules.name", not(name));
    }

    @Test
    void theApiDocumentDescribesTheSchedules() {
        given().get(management.resolve("/q/openapi")).then().statusCode(200).body(containsString("/api/v1/schedules/{name}"))
                .body(containsString("NewSchedule")).body(containsString("ScheduleChanges"))
                .body(containsString("nextFireTimes"));
    }

    // ---- plumbing

    private static RequestSpecification admin() {
        return given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).contentType("application/json");
    }

    private static void refused(String body, int status, String field, String detail) {
        admin().body(body).post("/api/v1/schedules").then().statusCode(status).contentType("application/problem+json")
                .body("field", is(field)).body("detail", containsString(detail));
    }

    private static void violation(String body, String field, String message) {
        admin().body(body).post("/api/v1/schedules").then().statusCode(400).contentType("application/problem+json")
                .body("violations.field", contains(field)).body("violations[0].message", containsString(message));
    }

    private static org.hamcrest.Matcher<Iterable<? super String>> not(String name) {
        return org.hamcrest.Matchers.not(hasItem(name));
    }
}

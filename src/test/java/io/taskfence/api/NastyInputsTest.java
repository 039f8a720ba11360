package io.taskfence.api;

import static io.taskfence.api.RawApi.Request.get;
import static io.taskfence.api.RawApi.Request.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.api.RawApi.Answer;
import io.taskfence.api.RawApi.Request;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * The hand-kept list of nasty inputs (issue 12): each a request, the status it must get and the field the
 * problem must name. Every one is a problem+json, never a 5xx, and changes no row. A task refused here is
 * refused the same way as the one task of a batch. HostileInputPropertiesTest generates more of the kinds.
 */
@QuarkusTest
@TestServers
class NastyInputsTest {

    private static final String TASKS = "/api/v1/tasks";
    private static final String JSON = "application/json";

    @Inject
    DataSource db;

    @TestHTTPResource("/")
    URI base;

    /** A task body refused before it is read into fields: 400, the whole batch too. */
    static Arguments unreadable(String what, String task, String field) {
        return Arguments.of(what, task, 400, field, true);
    }

    /** A task body read but refused by its checks: in a batch, this task only. */
    static Arguments refused(String what, String task, int status, String field) {
        return Arguments.of(what, task, status, field, false);
    }

    static String task(String fields) {
        return "{\"type\":\"noop\",\"payload\":{}" + (fields.isEmpty() ? "" : "," + fields) + "}";
    }

    static String payload(String payload) {
        return "{\"type\":\"noop\",\"payload\":" + payload + "}";
    }

    static Stream<Arguments> nastyTasks() {
        return Stream.of(
                // The examples.
                refused("payload string holding U+0000", payload("{\"s\":\"a\\u0000b\"}"), 400, "payload"),
                refused("runAt in year 300000000", task("\"runAt\":\"+300000000-01-01T00:00:00Z\""), 400, "runAt"),
                unreadable("priority 1.5", task("\"priority\":1.5"), "priority"),
                // Values PostgreSQL refuses or the driver would store as something else.
                refused("payload key holding U+0000", payload("{\"k\\u0000\":1}"), 400, "payload"),
                refused("payload string with an unpaired high surrogate", payload("{\"s\":\"\\ud800\"}"), 400, "payload"),
                refused("payload string with an unpaired low surrogate", payload("{\"s\":\"x\\udc00\"}"), 400, "payload"),
                refused("payload string with a reversed surrogate pair", payload("{\"s\":\"\\udc00\\ud800\"}"), 400, "payload"),
                unreadable("payload key with an unpaired surrogate", payload("{\"\\ud834\":1}"), "payload"),
                refused("payload number 1e1000, 1001 digits written out", payload("{\"n\":1e1000}"), 400, "payload"),
                refused("payload number 1e-1000", payload("{\"n\":1e-1000}"), 400, "payload"),
                refused("payload number past PostgreSQL's numeric", payload("{\"n\":-1e131072}"), 400, "payload"),
                refused("payload number with an exponent past BigDecimal", payload("{\"n\":1e2147483648}"), 400, "payload"),
                unreadable("payload number of 1001 digits", payload("{\"n\":" + "9".repeat(1001) + "}"), "payload"),
                unreadable("payload with a duplicate key", payload("{\"a\":1,\"a\":2}"), "payload"),
                unreadable("payload nested 1001 deep", payload("[".repeat(1000) + "]".repeat(1000)), "payload"),
                refused("payload an array", payload("[1]"), 400, "payload"),
                refused("payload a string", payload("\"{}\""), 400, "payload"),
                refused("payload null", payload("null"), 400, "payload"),
                refused("payload over 64 KiB", payload("{\"s\":\"" + "x".repeat(66_000) + "\"}"), 413, "payload"),
                // Instants outside PostgreSQL's range, or not instants.
                refused("runAt in year 10000", task("\"runAt\":\"+10000-01-01T00:00:00Z\""), 400, "runAt"),
                refused("runAt before 1970", task("\"runAt\":\"1969-12-31T23:59:59Z\""), 400, "runAt"),
                refused("runAt in year -1000000000", task("\"runAt\":\"-1000000000-01-01T00:00:00Z\""), 400, "runAt"),
                unreadable("runAt past Instant's range", task("\"runAt\":\"+3000000000-01-01T00:00:00Z\""), "runAt"),
                refused("deadline in year 300000000", task("\"deadline\":\"+300000000-01-01T00:00:00Z\""), 400, "deadline"),
                unreadable("runAt as epoch seconds", task("\"runAt\":1893456000"), "runAt"),
                unreadable("runAt as a fraction", task("\"runAt\":1.5"), "runAt"),
                unreadable("runAt empty", task("\"runAt\":\"\""), "runAt"),
                unreadable("runAt without an offset", task("\"runAt\":\"2030-01-01T00:00:00\""), "runAt"),
                unreadable("runAt a date only", task("\"runAt\":\"2030-01-01\""), "runAt"),
                unreadable("runAt an object", task("\"runAt\":{}"), "runAt"),
                unreadable("deadline true", task("\"deadline\":true"), "deadline"),
                refused("deadline not after runAt", task("\"runAt\":\"2030-01-01T00:00:00Z\",\"deadline\":\"2030-01-01T00:00:00Z\""),
                        400, "deadline"),
                // Numbers Jackson would coerce.
                unreadable("priority 3.0", task("\"priority\":3.0"), "priority"),
                unreadable("priority \"3\"", task("\"priority\":\"3\""), "priority"),
                unreadable("priority true", task("\"priority\":true"), "priority"),
                unreadable("priority 1e400", task("\"priority\":1e400"), "priority"),
                unreadable("priority 2^40", task("\"priority\":1099511627776"), "priority"),
                unreadable("priority 2^31", task("\"priority\":2147483648"), "priority"),
                unreadable("priority -2^31-1", task("\"priority\":-2147483649"), "priority"),
                unreadable("priority empty string", task("\"priority\":\"\""), "priority"),
                unreadable("priority [1]", task("\"priority\":[1]"), "priority"),
                unreadable("priority {}", task("\"priority\":{}"), "priority"),
                refused("priority 1001", task("\"priority\":1001"), 400, "priority"),
                refused("priority -2147483648", task("\"priority\":-2147483648"), 400, "priority"),
                unreadable("maxAttempts 1.5", task("\"maxAttempts\":1.5"), "maxAttempts"),
                unreadable("maxAttempts 1E2", task("\"maxAttempts\":1E2"), "maxAttempts"),
                unreadable("maxAttempts \"3\"", task("\"maxAttempts\":\"3\""), "maxAttempts"),
                refused("maxAttempts 0", task("\"maxAttempts\":0"), 400, "maxAttempts"),
                refused("maxAttempts 101", task("\"maxAttempts\":101"), 400, "maxAttempts"),
                // Strings Jackson would rewrite from other types, or that are no type.
                unreadable("type 123", "{\"type\":123,\"payload\":{}}", "type"),
                unreadable("type true", "{\"type\":true,\"payload\":{}}", "type"),
                unreadable("type an array", "{\"type\":[\"noop\"],\"payload\":{}}", "type"),
                unreadable("type twice", "{\"type\":\"noop\",\"type\":\"sleep\",\"payload\":{}}", "type"),
                refused("type empty", "{\"type\":\"\",\"payload\":{}}", 400, "type"),
                refused("type null", "{\"type\":null,\"payload\":{}}", 400, "type"),
                refused("type with U+0000", "{\"type\":\"noop\\u0000\",\"payload\":{}}", 400, "type"),
                refused("type with a newline at the end", "{\"type\":\"noop\\n\",\"payload\":{}}", 400, "type"),
                refused("type with an unpaired surrogate", "{\"type\":\"noop\\ud800\",\"payload\":{}}", 400, "type"),
                refused("type of 65 characters", "{\"type\":\"" + "a".repeat(65) + "\",\"payload\":{}}", 400, "type"),
                refused("type no handler has", "{\"type\":\"nope\",\"payload\":{}}", 422, "type"),
                unreadable("an unknown field", task("\"prio\":1"), "prio"),
                unreadable("a field named by an unpaired surrogate", task("\"\\udfff\":1"), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nastyTasks")
    void aNastyTaskIsRefusedNamingItsField(String what, String task, int status, String field, boolean unreadable) {
        refusedNaming(post(TASKS, JSON, task), status, field);
    }

    /** The detail speaks the API's language: what was sent and what is wanted, no Java type or exception. */
    @ParameterizedTest
    @ValueSource(strings = { "not-a-date", "", "2030-01-01T00:00:00", "2030-01-01", "+3000000000-01-01T00:00:00Z" })
    void aStringThatIsNoInstantIsRefusedInTheApisWords(String runAt) {
        Request request = post(TASKS, JSON, task("\"runAt\":\"" + runAt + "\""));
        Answer answer = new RawApi(base).send(request);
        assertEquals(400, answer.status(), answer::text);
        assertEquals("'runAt' cannot be read: \"" + runAt + "\" is not an instant: send an ISO-8601 date and time "
                + "with its offset, such as \"2030-01-01T00:00:00Z\"", answer.json().path("detail").asText(), answer::text);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nastyTasks")
    void aNastyTaskInABatchIsRefusedTheSameWay(String what, String task, int status, String field, boolean unreadable) {
        Request request = post(TASKS + "/batch", JSON, "{\"tasks\":[" + task + "]}");
        String inBatch = field == null ? null : "tasks[0]." + field;
        if (unreadable) {
            refusedNaming(request, 400, inBatch);
            return;
        }
        String before = RawApi.fingerprint(db);
        Answer answer = new RawApi(base).send(request);
        assertEquals(200, answer.status(), () -> request + ": " + answer.text());
        assertEquals(1, answer.json().path("refused").asInt(), answer::text);
        assertEquals(status, answer.json().path("items").path(0).path("status").asInt(), answer::text);
        assertTrue(RawApi.names(answer.json().path("items").path(0).path("problem"), inBatch),
                () -> "does not name " + inBatch + ": " + answer.text());
        assertEquals(before, RawApi.fingerprint(db), () -> request + " changed the task table");
    }

    static Stream<Arguments> nastyRequests() {
        String cursorOf = UUID.randomUUID().toString();
        return Stream.of(
                // Bodies that are no task at all.
                Arguments.of(post(TASKS, JSON, ""), 400, null),
                Arguments.of(post(TASKS, JSON, "null"), 400, null),
                Arguments.of(post(TASKS, JSON, "[]"), 400, null),
                Arguments.of(post(TASKS, JSON, "\"noop\""), 400, null),
                Arguments.of(post(TASKS, JSON, "{\"type\":\"noop\""), 400, null),
                Arguments.of(post(TASKS, JSON, task("") + " " + task("")), 400, null),
                Arguments.of(post(TASKS, JSON, task("") + " x"), 400, null),
                Arguments.of(post(TASKS, JSON, "{/*c*/\"type\":\"noop\",\"payload\":{}}"), 400, null),
                Arguments.of(post(TASKS, JSON, "{'type':'noop','payload':{}}"), 400, null),
                Arguments.of(post(TASKS, JSON, payload("{\"n\":NaN}")), 400, null),
                Arguments.of(post(TASKS, JSON, "[".repeat(100_000)), 400, null),
                Arguments.of(new Request("POST", TASKS, Map.of("Content-Type", JSON),
                        bytes("{\"type\":\"noop\",\"payload\":{\"s\":\"", new byte[] { (byte) 0xff }, "\"}}")), 400, null),
                Arguments.of(new Request("POST", TASKS, Map.of("Content-Type", JSON), // CESU-8 U+D800
                        bytes("{\"type\":\"noop\",\"payload\":{\"s\":\"", new byte[] { (byte) 0xed, (byte) 0xa0, (byte) 0x80 },
                                "\"}}")), 400, null),
                Arguments.of(new Request("POST", TASKS, Map.of("Content-Type", JSON), // overlong '/'
                        bytes("{\"type\":\"noop\",\"payload\":{\"s\":\"", new byte[] { (byte) 0xc0, (byte) 0xaf }, "\"}}")),
                        400, null),
                Arguments.of(new Request("POST", TASKS, Map.of("Content-Type", JSON), // overlong '/', three bytes
                        bytes("{\"type\":\"noop\",\"payload\":{\"s\":\"", new byte[] { (byte) 0xe0, (byte) 0x80, (byte) 0xaf },
                                "\"}}")), 400, null),
                Arguments.of(new Request("POST", TASKS, Map.of("Content-Type", JSON), // past U+10FFFF
                        bytes("{\"type\":\"noop\",\"payload\":{\"s\":\"", new byte[] { (byte) 0xf4, (byte) 0x90, (byte) 0x80,
                                (byte) 0x80 }, "\"}}")), 400, null),
                Arguments.of(post(TASKS + "/batch", JSON, "{\"tasks\":[]}"), 400, "tasks"),
                Arguments.of(post(TASKS + "/batch", JSON, "{\"tasks\":{}}"), 400, "tasks"),
                Arguments.of(post(TASKS + "/batch", JSON, "{\"tasks\":[1]}"), 400, "tasks[0]"),
                Arguments.of(post(TASKS + "/batch", JSON, "{\"tasks\":[],\"tasks\":[]}"), 400, "tasks"),
                // Bodies of another type.
                Arguments.of(post(TASKS, "text/plain", task("")), 415, null),
                Arguments.of(post(TASKS, null, task("")), 415, null),
                Arguments.of(post(TASKS, "application/xml", "<task/>"), 415, null),
                Arguments.of(post(TASKS, "multipart/form-data; boundary=x", "--x\r\n\r\n" + task("") + "\r\n--x--"), 415, null),
                Arguments.of(post(TASKS, "application/x-www-form-urlencoded", "type=noop"), 415, null),
                Arguments.of(post(TASKS, "application/", task("")), 415, null),
                Arguments.of(post(TASKS, "application/json; charset=latin1", "{\"type\":\"noop\",\"payload\":{\"s\":\"\u00e9\"}}")
                        .withLatin1Body(), 415, null),
                Arguments.of(post(TASKS, "application/json; charset=utf-16", task("")), 415, null),
                // Headers.
                Arguments.of(post(TASKS, JSON, task("")).with("Idempotency-Key", ""), 400, "Idempotency-Key"),
                Arguments.of(post(TASKS, JSON, task("")).with("Idempotency-Key", "a b"), 400, "Idempotency-Key"),
                Arguments.of(post(TASKS, JSON, task("")).with("Idempotency-Key", "k".repeat(201)), 400, "Idempotency-Key"),
                Arguments.of(post(TASKS, JSON, task("")).with("Authorization", ""), 401, null),
                Arguments.of(post(TASKS, JSON, task("")).with("Authorization", "Bearer"), 401, null),
                Arguments.of(post(TASKS, JSON, task("")).with("Authorization", "Basic dGVzdDp0ZXN0"), 401, null),
                Arguments.of(post(TASKS, JSON, task("")).with("Authorization", "Bearer " + "k".repeat(4000)), 401, null),
                Arguments.of(post(TASKS, JSON, task("")).with("Authorization", "Bearer \u00e9"), 401, null),
                // Query parameters and cursors that decode but mean nothing.
                Arguments.of(get(TASKS + "?status=done"), 400, "status"),
                Arguments.of(get(TASKS + "?status=PENDING%00"), 400, "status"),
                Arguments.of(get(TASKS + "?type=Noop"), 400, "type"),
                Arguments.of(get(TASKS + "?type=noop%0A"), 400, "type"),
                Arguments.of(get(TASKS + "?limit=0"), 400, "limit"),
                Arguments.of(get(TASKS + "?limit=101"), 400, "limit"),
                Arguments.of(get(TASKS + "?limit=1.5"), 400, "limit"),
                Arguments.of(get(TASKS + "?limit=%2B5"), 400, "limit"),
                Arguments.of(get(TASKS + "?limit=%D9%A3"), 400, "limit"), // ARABIC-INDIC DIGIT THREE
                Arguments.of(get(TASKS + "?owner=Billing"), 400, "owner"),
                Arguments.of(get(TASKS + "?owner=a%00b"), 400, "owner"),
                Arguments.of(get(TASKS + "?owner=" + "a".repeat(33)), 400, "owner"),
                Arguments.of(get(TASKS + "?limit=99999999999999999999"), 400, "limit"),
                Arguments.of(get(TASKS + "?fields=secret"), 400, "fields"),
                Arguments.of(get(TASKS + "?fields=payload,payload"), 400, "fields"),
                Arguments.of(get(TASKS + "?fields=payload,"), 400, "fields"),
                Arguments.of(get(TASKS + "?fields=PAYLOAD"), 400, "fields"),
                Arguments.of(get(TASKS + "?fields=payload%00"), 400, "fields"),
                Arguments.of(get(TASKS + "?after=%25%25"), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("1.2.3")), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("9223372036854775807.0." + cursorOf)), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("-9223372036854775808.0." + cursorOf)), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("9467078400000.0." + cursorOf)), 400, "after"), // year 300000
                Arguments.of(get(TASKS + "?after=" + cursor("-1.0." + cursorOf)), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("1700000000.-1." + cursorOf)), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("1700000000.0.1-1-1-1-1")), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("1700000000.0." + cursorOf.toUpperCase())), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("01700000000.0." + cursorOf)), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("1700000000.0." + cursorOf + ".x")), 400, "after"),
                Arguments.of(get(TASKS + "?after=" + cursor("1700000000.0." + cursorOf) + "%3D%3D"), 400, "after"),
                // Path ids (DESIGN: a malformed id is an unknown task).
                Arguments.of(get(TASKS + "/not-a-uuid"), 404, null),
                Arguments.of(get(TASKS + "/1-1-1-1-1"), 404, null),
                Arguments.of(get(TASKS + "/%00"), 404, null),
                Arguments.of(get(TASKS + "/%F0%9F%98%80"), 404, null),
                Arguments.of(get(TASKS + "/" + "f".repeat(3000)), 404, null),
                Arguments.of(post(TASKS + "/1-1-1-1-1/cancel", null, null).with("Authorization", "Bearer " + ApiKeysForTests.ADMIN_KEY), 404,
                        null),
                Arguments.of(post(TASKS + "/%20/retry", null, null).with("Authorization", "Bearer " + ApiKeysForTests.ADMIN_KEY), 404, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nastyRequests")
    void aNastyRequestIsAProblemNamingItsField(Request request, int status, String field) {
        refusedNaming(request, status, field);
    }

    /**
     * Values that look nasty but are a task's as sent: stored and answered unchanged, digit for digit (the
     * stored text is compared with PostgreSQL's own reading of the text sent), and listed again.
     */
    static Stream<String> keptAsSent() {
        return Stream.of("{\"n\":1.10}", "{\"n\":1e400}", "{\"n\":-1E-400}", "{\"n\":0.1000000000000000000001}",
                "{\"n\":123456789012345678901234567890}", "{\"n\":-0}", "{\"n\":" + "9".repeat(1000) + "}",
                "{\"s\":\"\\u0001\\u001f\\u007f\\u2028\\ufffe\"}", "{\"s\":\"\\ud83d\\ude00 \u00e9\"}", "{\"\":\"\"}",
                "{\"a\":" + "[".repeat(990) + "]".repeat(990) + "}");
    }

    @ParameterizedTest
    @MethodSource("keptAsSent")
    void aPayloadIsKeptAsSent(String payload) {
        Answer answer = new RawApi(base).send(post(TASKS, JSON, payload(payload)));
        assertEquals(201, answer.status(), answer::text);
        UUID id = UUID.fromString(answer.json().path("id").asText());
        assertEquals(1, Sql.count(db, "select count(*) from tasks where id = ? and payload::text = ?::jsonb::text", id,
                payload), "stored as something else than sent: " + payload);
        Answer listed = new RawApi(base).send(get(TASKS + "?limit=1"));
        assertEquals(200, listed.status(), listed::text);
        assertEquals(id.toString(), listed.json().path("items").path(0).path("id").asText());
    }

    static Stream<Arguments> databaseRefusals() {
        return Stream.of(Arguments.of("int", "x"), Arguments.of("numeric", "1e200000"),
                Arguments.of("timestamptz", "300000-01-01 00:00:00Z"), Arguments.of("timestamptz", "2030-02-30"),
                Arguments.of("jsonb", "{\"a\":\"\\u0000\"}"), Arguments.of("jsonb", "{\"a\":\"\\ud800\"}"));
    }

    /** The last line: a value PostgreSQL refuses (SQLState class 22) is the client's 400, not an outage. */
    @ParameterizedTest
    @MethodSource("databaseRefusals")
    void aValueThePostgresqlRefusesIsA400WithoutTheSql(String type, String value) {
        Request request = get("/test-only/refused/" + type + "?value="
                + java.net.URLEncoder.encode(value, StandardCharsets.UTF_8));
        Answer answer = new RawApi(base).send(request);
        RawApi.assertRefusal(request, answer);
        assertEquals(400, answer.status(), answer::text);
        assertEquals("the database refused a value of the request (a text, number or time it cannot store); nothing "
                + "was changed", answer.json().path("detail").asText(), "PostgreSQL's own message is not the API's");
        assertFalse(answer.text().toLowerCase().contains("select"), answer::text);
        assertFalse(answer.json().has("retryAfter") || answer.text().contains("try again"), answer::text);
    }

    /** An empty query parameter is one not given, as an HTML form sends it (JAX-RS reads it so). */
    @Test
    void emptyQueryParametersAreAbsentOnes() {
        Answer empty = new RawApi(base).send(get(TASKS + "?status=&type=&limit=&after="));
        assertEquals(200, empty.status(), empty::text);
        assertEquals(new RawApi(base).send(get(TASKS)).json(), empty.json());
    }

    @Test
    void aGoodCursorStillPages() {
        for (int i = 0; i < 3; i++) {
            assertEquals(201, new RawApi(base).send(post(TASKS, JSON, task(""))).status());
        }
        Answer first = new RawApi(base).send(get(TASKS + "?limit=2"));
        String next = first.json().path("next").asText();
        Answer second = new RawApi(base).send(get(TASKS + "?limit=2&after=" + next));
        assertEquals(200, second.status(), second::text);
        assertEquals(2, second.json().path("items").size());
    }

    private void refusedNaming(Request request, int status, String field) {
        String before = RawApi.fingerprint(db);
        Answer answer = new RawApi(base).send(request);
        RawApi.assertRefusal(request, answer);
        assertEquals(status, answer.status(), () -> request + ": " + answer.text());
        if (field != null) {
            assertTrue(RawApi.names(answer.json(), field), () -> request + " does not name " + field + ": " + answer.text());
        }
        assertEquals(before, RawApi.fingerprint(db), () -> request + " changed the task table");
    }

    private static String cursor(String plain) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] bytes(String before, byte[] middle, String after) {
        byte[] head = before.getBytes(StandardCharsets.UTF_8);
        byte[] tail = after.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[head.length + middle.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(middle, 0, all, head.length, middle.length);
        System.arraycopy(tail, 0, all, head.length + middle.length, tail.length);
        return all;
    }
}

package io.taskfence.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

import javax.sql.DataSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;

/**
 * Requests exactly as a test writes them (any bytes, any headers, nothing added but the submit key unless
 * the test sets Authorization), and what must hold of every answer to hostile input.
 */
final class RawApi {

    /** One request: method, path with its query (already percent-encoded), headers, body (null: none). */
    record Request(String method, String target, Map<String, String> headers, byte[] body) {

        static Request post(String target, String contentType, String body) {
            return new Request("POST", target, contentType == null ? Map.of() : Map.of("Content-Type", contentType),
                    body == null ? null : body.getBytes(StandardCharsets.UTF_8));
        }

        static Request get(String target) {
            return new Request("GET", target, Map.of(), null);
        }

        /** The same request with its body in ISO-8859-1, as a client that declares charset=latin1 sends it. */
        Request withLatin1Body() {
            return new Request(method, target, headers, new String(body, StandardCharsets.UTF_8)
                    .getBytes(StandardCharsets.ISO_8859_1));
        }

        Request with(String header, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(header, value);
            return new Request(method, target, more, body);
        }

        @Override
        public String toString() {
            String shown = body == null ? "" : " " + new String(body, StandardCharsets.UTF_8);
            return method + " " + target + " " + headers + (shown.length() > 300 ? shown.substring(0, 300) + "..." : shown);
        }
    }

    /** The answer; {@code json} is null when the body is not JSON. */
    record Answer(int status, String contentType, String text, JsonNode json) {
    }

    private static final ObjectMapper LENIENT = new ObjectMapper();

    private final URI base;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    RawApi(URI base) {
        this.base = base;
    }

    Answer send(Request request) {
        HttpRequest.Builder http = HttpRequest.newBuilder(base.resolve(request.target())).timeout(Duration.ofSeconds(30))
                .method(request.method(), request.body() == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(request.body()));
        if (!request.headers().containsKey("Authorization")) {
            http.header("Authorization", "Bearer " + ApiKeysForTests.SUBMIT_KEY);
        }
        request.headers().forEach(http::header);
        try {
            HttpResponse<String> response = client.send(http.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null),
                    response.body(), json(response.body()));
        } catch (IOException e) {
            throw new AssertionError(request + " got no answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Never a 5xx; a refusal is an RFC 9457 problem of the answer's status, with a title and a detail. */
    static void assertRefusal(Request request, Answer answer) {
        assertTrue(answer.status() < 500, () -> request + " answered " + answer.status() + ": " + answer.text());
        if (answer.status() < 400) {
            return;
        }
        assertNotNull(answer.contentType(), () -> request + " answered " + answer.status() + " without a body type");
        assertTrue(answer.contentType().startsWith("application/problem+json"),
                () -> request + " answered " + answer.contentType() + ": " + answer.text());
        assertNotNull(answer.json(), () -> request + " answered a problem that is not JSON: " + answer.text());
        assertEquals(answer.status(), answer.json().path("status").asInt(), () -> request + ": " + answer.text());
        assertFalse(answer.json().path("title").asText().isBlank(), () -> request + ": " + answer.text());
        assertFalse(answer.json().path("detail").asText().isBlank(), () -> request + ": " + answer.text());
        leak(answer.json().path("detail").asText()).ifPresent(leak -> {
            throw new AssertionError(request + ": the detail holds '" + leak + "': " + answer.text());
        });
    }

    /**
     * What a detail must not hold: Java's and Jackson's names and phrasing, a parser's excerpt of the source. (A
     * backtick alone may be the client's own input, echoed; Jackson's quote a dotted Java name.)
     */
    private static final List<String> LEAKS = List.of("java.", "com.fasterxml", "io.taskfence", "Cannot deserialize",
            "Cannot construct", "Cannot coerce", "class ", "JsonNode", "ObjectNode", "UUID has to", "Instant",
            "through reference chain", "[Source:", "Integer", "Boolean", "String value", "ArrayList", "LinkedHashMap",
            "coercion", "JsonToken", "STRING", "ARRAY", "NUMBER", "BOOLEAN", "Exception");
    private static final Pattern QUOTED_JAVA_NAME = Pattern.compile("`[A-Za-z_$][\\w$]*(\\.[\\w$<>]+)+(\\(\\))?`");

    /** The first text of {@link #LEAKS} the detail holds, or a Java name quoted as Jackson does. */
    static Optional<String> leak(String detail) {
        Matcher quoted = QUOTED_JAVA_NAME.matcher(detail);
        return quoted.find() ? Optional.of(quoted.group()) : LEAKS.stream().filter(detail::contains).findFirst();
    }

    /**
     * Whether the problem names {@code field} (a JSON path, e.g. tasks[0].type): as its {@code field}, a
     * violation's, or, where Jackson refused the JSON itself (a duplicate key), its name quoted in the detail.
     */
    static boolean names(JsonNode problem, String field) {
        String name = field.substring(field.lastIndexOf('.') + 1);
        return field.equals(problem.path("field").asText(null))
                || StreamSupport.stream(problem.path("violations").spliterator(), false)
                        .anyMatch(violation -> field.equals(violation.path("field").asText()))
                || problem.path("detail").asText().contains("'" + name + "'");
    }

    /** Changes to the task table: its rows, their versions and statuses. */
    static String fingerprint(DataSource db) {
        StringBuilder print = new StringBuilder();
        Sql.rows(db, "select count(*), coalesce(max(updated_at)::text, '-'), coalesce(sum(hashtext(id::text || status)), 0) "
                + "from tasks", row -> print.append(row.getLong(1)).append('/').append(row.getString(2)).append('/')
                        .append(row.getLong(3)));
        return print.toString();
    }

    private static JsonNode json(String text) {
        try {
            return text == null || text.isEmpty() ? null : LENIENT.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }
}

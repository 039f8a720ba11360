package io.taskfence.handlers.builtin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskHandlers;
import io.taskfence.handlers.TaskOutcome;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * The {@code http} handler against a real local server: each kind of answer becomes the outcome the design
 * asks for, only allowed destinations are called, never at an address that is not public unless the
 * allow-list names it, and neither a silent server nor an interrupt holds it up.
 */
@QuarkusTest
@TestServers
@TestProfile(HttpHandlerProfile.class)
class HttpHandlerTest {

    /**
     * The handler's {@code taskfence.http.timeout} here (HttpHandlerProfile): short, so that the slow cases are
     * quick, yet long enough that a quick answer from the local server arrives within it on a busy machine (at
     * 1 s, a 404 once timed out while other builds shared the two cores).
     */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** The API key whose own allowed-hosts (HttpHandlerProfile) is one entry of the service's list. */
    static final String NARROW_KEY = ApiKeysForTests.OTHER_SUBMIT_KEY_NAME;

    /** A request as the server saw it. */
    record Received(String path, String contentType, String body) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Received> RECEIVED = new CopyOnWriteArrayList<>();
    // Holds the slow endpoints' answers until the tests are over.
    private static final CountDownLatch RELEASE = new CountDownLatch(1);

    /** The {@link LocalHookServer}'s port, once the first test has added the routes. */
    private static int port;

    @Inject
    TaskHandlers handlers;
    /** Injected by {@link LocalHookServer}: running, and on the allow-list. */
    HttpServer server;
    /** Injected by {@link LocalHookServer}: a loopback port on the allow-list where nothing listens. */
    InetSocketAddress closed;

    @BeforeEach
    void routeOnce() {
        if (port != 0) {
            return;
        }
        route("/ok", (exchange, request) -> answer(exchange, 200, "application/json; charset=utf-8",
                "{\"accepted\":true,\"echo\":" + request.body() + "}"));
        route("/text", (exchange, request) -> answer(exchange, 200, "text/plain", "done"));
        route("/not-json", (exchange, request) -> answer(exchange, 200, "application/json", "{oops"));
        route("/big", (exchange, request) -> answer(exchange, 200, "application/json",
                "\"" + "x".repeat(100 * 1024) + "\""));
        route("/no-content", (exchange, request) -> answer(exchange, 204, null, ""));
        route("/unavailable", (exchange, request) -> answer(exchange, 503, "text/plain", "down"));
        route("/too-many", (exchange, request) -> answer(exchange, 429, "text/plain", "slow down"));
        route("/missing", (exchange, request) -> answer(exchange, 404, "text/plain", "no such hook"));
        route("/moved", (exchange, request) -> {
            exchange.getResponseHeaders().add("Location", "http://127.0.0.1:" + port() + "/ok");
            answer(exchange, 302, null, "");
        });
        route("/slow", (exchange, request) -> {
            awaitRelease();
            answer(exchange, 200, "application/json", "{}");
        });
        route("/slow-body", (exchange, request) -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0); // chunked, and the body never ends
            exchange.getResponseBody().write("{\"partial\":".getBytes(UTF_8));
            exchange.getResponseBody().flush();
            awaitRelease();
            exchange.close();
        });
        port = server.getAddress().getPort();
    }

    @AfterAll
    static void releaseSlowAnswers() {
        RELEASE.countDown(); // LocalHookServer stops the server
    }

    @Test
    void a2xxAnswerSucceedsWithItsStatusAndJsonBody() throws Exception {
        JsonNode body = JSON.readTree("{\"order\":17,\"lines\":[\"a\",\"b\"],\"note\":\"caf\u00e9\"}");
        TaskOutcome outcome = handle(payload("/ok").set("body", body));

        JsonNode result = assertInstanceOf(TaskOutcome.Success.class, outcome).result();
        assertEquals(200, result.get("status").asInt());
        assertTrue(result.get("body").get("accepted").asBoolean(), "the body is stored as JSON: " + result);
        assertEquals(body, result.get("body").get("echo"));
        assertFalse(result.has("bodyTruncated"));
        Received request = last("/ok");
        assertEquals("application/json", request.contentType());
        assertEquals(body, JSON.readTree(request.body()), "the server got the payload's body");
    }

    @Test
    void anyJsonValueIsSentAndAnAbsentBodyIsSentAsAnEmptyObject() throws Exception {
        handle(payload("/ok"));
        assertEquals(JSON.createObjectNode(), JSON.readTree(last("/ok").body()));

        handle(payload("/ok").set("body", JSON.readTree("[1,\"two\",null]")));
        assertEquals(JSON.readTree("[1,\"two\",null]"), JSON.readTree(last("/ok").body()));

        handle(payload("/ok").set("body", JSON.readTree("null")));
        assertEquals("null", last("/ok").body(), "an explicit null is sent as null");
    }

    @Test
    void anAnswerThatIsNotJsonIsKeptAsTextAndALargeOneIsCut() throws Exception {
        assertEquals("done", success(handle(payload("/text"))).get("body").textValue());
        assertEquals("{oops", success(handle(payload("/not-json"))).get("body").textValue());
        assertEquals("", success(handle(payload("/no-content"))).get("body").textValue());

        JsonNode big = success(handle(payload("/big")));
        assertEquals(HttpHandler.MAX_BODY_BYTES, big.get("body").textValue().length());
        assertTrue(big.get("bodyTruncated").asBoolean());
    }

    @Test
    void a5xxOr429IsAFailureThatIsRetried() throws Exception {
        String unavailable = assertInstanceOf(TaskOutcome.Failure.class, handle(payload("/unavailable"))).error();
        assertTrue(unavailable.contains("127.0.0.1") && unavailable.contains("503"), unavailable);
        String tooMany = assertInstanceOf(TaskOutcome.Failure.class, handle(payload("/too-many"))).error();
        assertTrue(tooMany.contains("127.0.0.1") && tooMany.contains("429"), tooMany);
    }

    @Test
    void anyOther4xxIsPermanent() throws Exception {
        String error = assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(payload("/missing"))).error();
        assertTrue(error.contains("127.0.0.1") && error.contains("404"), error);
    }

    /** A key's own allowed-hosts narrows the service's list for its tasks, at submission and when they run. */
    @Test
    void aKeyWithItsOwnAllowedHostsMayCallThoseOnly() throws Exception {
        long before = count("/ok");
        String refused = "payload.url's destination http://127.0.0.1:" + port() + " is not allowed for API key '"
                + NARROW_KEY + "': taskfence.auth.keys." + NARROW_KEY + ".allowed-hosts does not list it";
        assertEquals(List.of(refused), http().payloadProblems(payload("/ok"), NARROW_KEY));
        TaskOutcome outcome = http().handle(new TaskHandler.Work(UUID.randomUUID(), payload("/ok"), 1, NARROW_KEY));
        assertEquals(refused, assertInstanceOf(TaskOutcome.PermanentFailure.class, outcome).error());
        assertEquals(before, count("/ok"), "a destination the key may not call was called");
        assertEquals(List.of(), http().payloadProblems(url("http://10.1.2.3/hook"), NARROW_KEY));
        assertEquals(List.of(), http().payloadProblems(payload("/ok"), ApiKeysForTests.SUBMIT_KEY_NAME),
                "a key without a list of its own may call the service's whole list");
    }

    @Test
    void aRedirectIsPermanentAndNotFollowed() throws Exception {
        long before = count("/ok");
        String error = assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(payload("/moved"))).error();
        assertTrue(error.contains("302") && error.contains("not followed"), error);
        assertFalse(error.contains("/ok"), "the redirect's Location, which may carry a token, was recorded: " + error);
        assertEquals(before, count("/ok"), "the redirect was followed");
    }

    @ParameterizedTest
    @ValueSource(strings = { "/slow", "/slow-body" })
    void aServerThatDoesNotAnswerInTimeIsAFailureAfterTheTimeout(String path) throws Exception {
        long before = count(path);
        long start = System.nanoTime();
        String error = assertInstanceOf(TaskOutcome.Failure.class, handle(payload(path))).error();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertTrue(error.contains("127.0.0.1") && error.contains(TIMEOUT.toMillis() + " ms"), error);
        assertTrue(took.compareTo(TIMEOUT.minusMillis(100)) >= 0, "gave up before the " + TIMEOUT + " time-out: " + took);
        assertTrue(took.compareTo(TIMEOUT.plusSeconds(7)) < 0, "took " + took + " with a " + TIMEOUT + " time-out");
        assertTrue(count(path) > before, "the call never reached the server");
    }

    @Test
    void aRefusedConnectionIsAFailureNamingTheHost() throws Exception {
        String error = assertInstanceOf(TaskOutcome.Failure.class,
                handle(url("http://127.0.0.1:" + closed.getPort() + "/"))).error();
        assertTrue(error.contains("127.0.0.1") && error.contains("ConnectException"), error);
    }

    @ParameterizedTest
    @ValueSource(strings = { "localhost", "127.0.0.2", "LOCALHOST" })
    void aHostNotAllowedIsRefusedPermanentlyWithoutACall(String host) throws Exception {
        int before = RECEIVED.size();
        ObjectNode payload = url("http://" + host + ":" + port() + "/ok");

        String error = assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(payload)).error();
        assertTrue(error.contains("'" + host.toLowerCase() + "' is not allowed")
                && error.contains("taskfence.http.allowed-hosts"), error);
        assertEquals(before, RECEIVED.size(), "the server was called");
    }

    @ParameterizedTest
    @ValueSource(strings = { "http://127.0.0.1:6379/ok", "https://127.0.0.1:{port}/ok", "http://127.0.0.1/ok" })
    void anAllowedHostOnAnotherPortOrSchemeIsRefusedPermanentlyWithoutACall(String template) throws Exception {
        int before = RECEIVED.size();
        String url = template.replace("{port}", Integer.toString(port()));
        Destination destination = Destination.of(URI.create(url));

        String error = assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(url(url))).error();
        assertTrue(error.contains("lists host '127.0.0.1', but not with scheme " + destination.scheme() + " and port "
                + destination.port()), error);
        assertEquals(List.of(error), http().payloadProblems(url(url)), "refused at submission too");
        assertRevealsNoOtherEntry(error, destination);
        assertEquals(before, RECEIVED.size(), "the server was called");
    }

    @ParameterizedTest
    @CsvSource({
            "http://" + ScriptedHostResolver.REBOUND + ":{port}/ok, a loopback address",
            "https://" + ScriptedHostResolver.METADATA + ":8443/latest/meta-data, a link-local address",
            "http://" + ScriptedHostResolver.MAPPED + "/latest/meta-data, a link-local address",
            "http://" + ScriptedHostResolver.PARTLY_PRIVATE + "/hook, a private address" })
    void anAllowedNameThatResolvesToAnAddressThatIsNotPublicIsRefusedPermanentlyWithoutACall(String template,
            String kind) throws Exception {
        int before = RECEIVED.size();
        ObjectNode payload = url(template.replace("{port}", Integer.toString(port())));
        assertEquals(List.of(), http().payloadProblems(payload), "submission looks nothing up");

        String error = assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(payload)).error();
        assertTrue(error.contains("resolves to " + kind) && error.contains("lists that address itself"), error);
        assertFalse(error.contains("127.0.0.1") || error.contains("169.254.169.254") || error.contains("10.0.0.7"),
                "the refusal tells the caller what kind of address, not which: " + error);
        assertEquals(before, RECEIVED.size(), "the server was called");
    }

    @ParameterizedTest
    @CsvSource({
            "http://10.1.2.4/hook, a private address",
            "http://169.254.169.254/latest/meta-data, a link-local address",
            "http://[fd00:ec2::254]/latest/meta-data, a private address",
            "http://[::1]:{port}/ok, a loopback address",
            "http://0.0.0.0:{port}/ok, an unspecified address" })
    void anAddressThatIsNotPublicIsRefusedAtSubmissionUnlessAnEntryNamesIt(String template, String kind)
            throws Exception {
        int before = RECEIVED.size();
        ObjectNode payload = url(template.replace("{port}", Integer.toString(port())));

        String problem = http().payloadProblems(payload).getFirst();
        assertTrue(problem.contains("is not allowed: it is " + kind), problem);
        assertEquals(problem, assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(payload)).error());
        assertEquals(before, RECEIVED.size(), "the server was called");

        // The exception: an entry that is the private address itself (http://10.1.2.3, default port 80).
        assertEquals(List.of(), http().payloadProblems(url("http://10.1.2.3/hook")));
        assertEquals(List.of(), http().payloadProblems(url("http://10.1.2.3:80/hook")));
    }

    @Test
    void theCallGoesToTheAddressThatWasCheckedWithoutLookingTheNameUpAgain() throws Exception {
        // DNS does not know public.test: a second look-up would fail with UnknownHostException, not reach
        // the scripted address (where nothing answers).
        String error = assertInstanceOf(TaskOutcome.Failure.class,
                handle(url("http://" + ScriptedHostResolver.PUBLIC + "/hook"))).error();
        assertTrue(error.startsWith("POST to " + ScriptedHostResolver.PUBLIC + " "), error);
        assertFalse(error.contains("UnknownHost"), error);
        assertFalse(error.contains(ScriptedHostResolver.PUBLIC_ADDRESS), "the task's error, which its tenant reads, "
                + "names the address the host resolved to: " + error);
    }

    @Test
    void aNameThatDoesNotResolveIsAFailureThatIsRetried() throws Exception {
        String error = assertInstanceOf(TaskOutcome.Failure.class, handle(url("http://nowhere.test/hook"))).error();
        assertTrue(error.contains("nowhere.test") && error.contains("UnknownHostException"), error);
    }

    @ParameterizedTest
    @ValueSource(strings = { "{}", "{\"url\":7}", "{\"url\":\"ftp://127.0.0.1/x\"}", "{\"url\":\"/ok\"}",
            "{\"url\":\"http://127.0.0.1:99999/\"}", "{\"url\":\"http://[::1/\"}" })
    void aUrlThatCannotBeCalledIsAPermanentFailureAndAPayloadProblem(String json) throws Exception {
        ObjectNode payload = (ObjectNode) JSON.readTree(json);
        assertInstanceOf(TaskOutcome.PermanentFailure.class, handle(payload));
        assertEquals(1, http().payloadProblems(payload).size());
    }

    @Test
    void anInterruptedCallStopsAtOnce() throws Exception {
        long before = count("/slow");
        CompletableFuture<Object> ended = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                ended.complete(handle(payload("/slow")));
            } catch (Throwable e) {
                ended.complete(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (count("/slow") == before && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(count("/slow") > before, "the call never reached the server");
        caller.interrupt();
        // A handler that ignored the interrupt would return a time-out failure after TIMEOUT instead.
        assertInstanceOf(InterruptedException.class, ended.get(5, TimeUnit.SECONDS));
    }

    private TaskHandler http() {
        return handlers.forType("http").orElseThrow();
    }

    /**
     * One attempt; once more if it failed without the hook server seeing a request. Under CI's load a call has
     * failed within milliseconds, before reaching the server (seen a few times in CI, never alone, the cause not
     * yet known): what these cases test is what the handler makes of an answer, so such a call goes again, and
     * its error is printed for whoever finds the cause. Calls meant to go elsewhere (a closed port, a name that
     * does not resolve) are made once.
     */
    private TaskOutcome handle(ObjectNode payload) throws Exception {
        TaskHandler.Work work = new TaskHandler.Work(UUID.randomUUID(), payload, 1, null);
        int seen = RECEIVED.size();
        TaskOutcome outcome = http().handle(work);
        boolean toTheHookServer = payload.path("url").asText().startsWith("http://127.0.0.1:" + port() + "/");
        if (outcome instanceof TaskOutcome.Failure failed && toTheHookServer && RECEIVED.size() == seen) {
            System.err.println("HttpHandlerTest: the call to " + payload.path("url").asText()
                    + " failed without reaching the hook server (" + failed.error() + "); calling again");
            outcome = http().handle(work);
        }
        return outcome;
    }

    private static ObjectNode payload(String path) {
        return url("http://127.0.0.1:" + port() + path);
    }

    private static ObjectNode url(String url) {
        return JsonNodeFactory.instance.objectNode().put("url", url);
    }

    /**
     * The message names the URL's own destination and nothing else on the allow-list: no other entry as a word of its
     * own (the hook server's random port may hold another's digits, 44321 those of 443).
     */
    private void assertRevealsNoOtherEntry(String error, Destination own) {
        for (String other : List.of(ScriptedHostResolver.REBOUND, ScriptedHostResolver.PUBLIC, "10.1.2.3", "nowhere",
                Integer.toString(closed.getPort()), own.port() == port() ? "443" : Integer.toString(port()))) {
            assertFalse(Pattern.compile("(?<![0-9A-Za-z.])" + Pattern.quote(other) + "(?![0-9A-Za-z])").matcher(error).find(),
                    "names " + other + ": " + error);
        }
    }

    private static JsonNode success(TaskOutcome outcome) {
        return assertInstanceOf(TaskOutcome.Success.class, outcome).result();
    }

    private static int port() {
        return port;
    }

    private static Received last(String path) {
        return RECEIVED.reversed().stream().filter(r -> r.path().equals(path)).findFirst().orElseThrow();
    }

    private static long count(String path) {
        return RECEIVED.stream().filter(r -> r.path().equals(path)).count();
    }

    /** Serves {@code path}, recording each request before it answers. */
    private void route(String path, Answer answer) {
        server.createContext(path, exchange -> {
            Received request = new Received(exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    new String(exchange.getRequestBody().readAllBytes(), UTF_8));
            RECEIVED.add(request);
            answer.answer(exchange, request);
        });
    }

    private interface Answer {
        void answer(HttpExchange exchange, Received request) throws IOException;
    }

    private static void answer(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(UTF_8);
        if (contentType != null) {
            exchange.getResponseHeaders().add("Content-Type", contentType);
        }
        // Each call on a connection of its own: the JDK's server closes connections that earlier cases cut or left
        // idle, and a pooled one it closed as the next call took it failed that call (seen once in CI).
        exchange.getResponseHeaders().set("Connection", "close");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void awaitRelease() {
        try {
            RELEASE.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

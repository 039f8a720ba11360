package io.taskfence.tracing;

import static io.restassured.RestAssured.given;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.common.http.TestHTTPResource;
import io.taskfence.client.ClaimedTask;
import io.taskfence.client.TaskfenceClient;
import io.taskfence.handlers.builtin.LocalHookServer;
import io.taskfence.worker.WorkersWithHookServer;
import io.taskfence.task.Sql;
import io.taskfence.task.query.TaskQueries;
import io.taskfence.task.TaskStatus;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * A task's spans form one trace with the request that submitted it (DESIGN.md, "Tracing"), read from the SDK's
 * in-memory exporter: the submission's server span, then each attempt (run here, or claimed by a remote worker), then
 * what the attempt does (the {@code http} handler's call, the worker's report), with the trace context passed on to
 * the webhook and to the worker.
 */
@QuarkusTest
@TestServers
@TestProfile(WorkersWithHookServer.class)
class TracingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The traceparent header each request to the hook server carried, by path. */
    private static final Map<String, String> HOOK_TRACEPARENTS = new ConcurrentHashMap<>();

    @Inject
    InMemorySpanExporter spans;

    @Inject
    TaskQueries queries;

    @Inject
    DataSource db;

    /** Injected by {@link LocalHookServer}. */
    HttpServer server;

    @TestHTTPResource("/")
    URI root;

    @Test
    void anHttpTaskIsOneTraceFromItsSubmissionThroughItsAttemptToTheCallItMakes() {
        server.createContext("/traced", exchange -> {
            HOOK_TRACEPARENTS.put(exchange.getRequestURI().getPath(),
                    Objects.toString(exchange.getRequestHeaders().getFirst("traceparent"), "none"));
            exchange.getRequestBody().readAllBytes();
            byte[] answer = "{\"ok\":true}".getBytes(UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        Caller caller = Caller.fresh();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/traced";
        UUID id = UUID.fromString(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).header("traceparent", caller.header())
                .contentType("application/json").body("{\"type\":\"http\",\"payload\":{\"url\":\"" + url + "\"}}")
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id"));
        await().atMost(WAIT).until(() -> queries.find(id).orElseThrow().status() == TaskStatus.SUCCEEDED);

        SpanData call = awaitSpan(caller, span -> span.getKind() == SpanKind.CLIENT);
        SpanData attempt = awaitSpan(caller, span -> span.getName().equals("process http"));
        SpanData submit = onlySpan(caller, span -> span.getKind() == SpanKind.SERVER);

        assertEquals(caller.spanId(), submit.getParentSpanId(), "the submission continues the caller's trace");
        assertEquals("00-" + caller.traceId() + "-" + submit.getSpanId() + "-01", storedTraceParent(id),
                "the task keeps the submission's context");
        assertEquals(submit.getSpanId(), attempt.getParentSpanId(), "the attempt is the submission's child");
        assertEquals(SpanKind.CONSUMER, attempt.getKind());
        assertEquals(id.toString(), attribute(attempt, "taskfence.task.id"));
        assertEquals("http", attribute(attempt, "taskfence.task.type"));
        assertEquals(1L, attempt.getAttributes().get(TaskTraces.ATTEMPT));
        assertEquals("success", attribute(attempt, "taskfence.task.outcome"));
        assertFalse(attribute(attempt, "taskfence.replica").isBlank());
        assertEquals(attempt.getSpanId(), call.getParentSpanId(), "the call is the attempt's child");
        assertEquals("POST", call.getName());
        assertEquals(200L, call.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals("00-" + caller.traceId() + "-" + call.getSpanId() + "-01", HOOK_TRACEPARENTS.get("/traced"),
                "the webhook got the call's context, to continue the trace");
    }

    @Test
    void aFailedAttemptsSpanSaysHowItFailed() {
        server.createContext("/broken", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        Caller caller = Caller.fresh();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/broken";
        UUID id = UUID.fromString(given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).header("traceparent", caller.header())
                .contentType("application/json")
                .body("{\"type\":\"http\",\"maxAttempts\":1,\"payload\":{\"url\":\"" + url + "\"}}")
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id"));
        await().atMost(WAIT).until(() -> queries.find(id).orElseThrow().status() == TaskStatus.DEAD);

        SpanData attempt = awaitSpan(caller, span -> span.getName().equals("process http"));
        SpanData call = awaitSpan(caller, span -> span.getKind() == SpanKind.CLIENT);
        assertEquals("failure", attribute(attempt, "taskfence.task.outcome"));
        assertEquals(StatusCode.ERROR, attempt.getStatus().getStatusCode());
        assertTrue(attempt.getStatus().getDescription().contains("answered 503"), attempt.getStatus().toString());
        assertEquals(503L, call.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals(StatusCode.ERROR, call.getStatus().getStatusCode());
    }

    @Test
    void theJavaClientsClaimCarriesTheTaskTraceAndItsReportJoinsIt() {
        Caller caller = Caller.fresh();
        TaskfenceClient submitter = new TaskfenceClient(List.of(api()), ApiKeysForTests.SUBMIT_KEY, WAIT);
        String id = submitter.submit("archive", Map.of("client", "java"), caller.header()).get("id").asText();
        TaskfenceClient worker = new TaskfenceClient(List.of(api()), ApiKeysForTests.WORKER_KEY, WAIT);
        ClaimedTask claim = claim(worker, id);
        assertNotNull(claim.traceparent(), "a traced task's claim carries its context: " + claim);

        SpanData claimed = awaitSpan(caller, span -> span.getName().equals("claim archive"));
        SpanData submit = onlySpan(caller, span -> span.getKind() == SpanKind.SERVER);
        assertEquals(caller.spanId(), submit.getParentSpanId(), "the submission continues the caller's trace");
        assertEquals(submit.getSpanId(), claimed.getParentSpanId(), "the claim is the submission's child");
        assertEquals("00-" + caller.traceId() + "-" + claimed.getSpanId() + "-01", claim.traceparent());
        assertEquals(1L, claimed.getAttributes().get(TaskTraces.ATTEMPT), "the first attempt");
        assertEquals(id, attribute(claimed, "taskfence.task.id"));
        assertTrue(attribute(claimed, "taskfence.worker").endsWith(":" + ApiKeysForTests.WORKER_KEY_NAME + ":tracing"),
                attribute(claimed, "taskfence.worker"));

        worker.heartbeat(claim);
        worker.complete(claim, Map.of());
        List<SpanData> reports = awaitSpans(caller, 2, span -> span.getKind() == SpanKind.SERVER
                && claimed.getSpanId().equals(span.getParentSpanId()));
        assertEquals(List.of("success"), reports.stream().map(span -> attribute(span, "taskfence.task.outcome"))
                .filter(Objects::nonNull).toList(), "the worker's heartbeat and report join the trace; the report "
                + "says how the attempt ended");
    }

    @Test
    void thePythonWorkerContinuesTheTaskTrace() throws Exception {
        Caller caller = Caller.fresh();
        // Submits a task with the caller's context, then runs a worker until it has run that task.
        String script = String.join("\n",
                "import sys",
                "from taskfence import Client, Worker",
                "url, submit_key, worker_key, traceparent = sys.argv[1:5]",
                "task = Client(url, submit_key).submit('archive', {'client': 'python'}, traceparent=traceparent)",
                "def handle(job):",
                "    if job.task_id == task['id']:",
                "        print(job.traceparent, flush=True)",
                "        worker.stop()",
                "    return {'by': 'python'}",
                "worker = Worker(Client(url, worker_key), ['archive'], handle, wait=5, name='tracing-python')",
                "worker.run()");
        ProcessBuilder run = new ProcessBuilder("/usr/bin/python3", "-c", script, api().toString(),
                ApiKeysForTests.SUBMIT_KEY, ApiKeysForTests.WORKER_KEY, caller.header()).redirectErrorStream(true);
        run.environment().put("PYTHONPATH", Path.of("clients/python").toAbsolutePath().toString());
        Process python = run.start();
        python.getOutputStream().close();
        boolean ended = python.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
        String output = new String(python.getInputStream().readAllBytes(), UTF_8);
        if (!ended) {
            python.destroyForcibly();
        }
        assertTrue(ended && python.exitValue() == 0, "the Python worker ran the task and stopped: " + output);

        SpanData claimed = awaitSpan(caller, span -> span.getName().equals("claim archive"));
        assertTrue(output.contains("00-" + caller.traceId() + "-" + claimed.getSpanId() + "-01"),
                "the handler got the claim's context: " + output);
        SpanData report = awaitSpan(caller, span -> span.getKind() == SpanKind.SERVER
                && claimed.getSpanId().equals(span.getParentSpanId()) && "success".equals(attribute(span,
                        "taskfence.task.outcome")));
        assertTrue(report.getName().contains("claims"), report.getName());
    }

    /** The claim of task {@code id} (of type archive), made as worker "tracing"; another task claimed is released. */
    private static ClaimedTask claim(TaskfenceClient worker, String id) {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            for (ClaimedTask claim : worker.claim(List.of("archive"), 10, Duration.ofSeconds(5), "tracing")) {
                if (claim.taskId().equals(id)) {
                    return claim;
                }
                worker.release(claim);
            }
        }
        throw new AssertionError("task " + id + " was not claimed within " + WAIT);
    }

    /** The service's URL, as the clients take it: without the path's slash. */
    private URI api() {
        return URI.create(root.toString().replaceAll("/+$", ""));
    }

    private String storedTraceParent(UUID id) {
        return Sql.value(db, "select trace_parent from tasks where id = ?", id);
    }

    private SpanData awaitSpan(Caller caller, Predicate<SpanData> which) {
        return await().atMost(WAIT).until(() -> inTrace(caller).stream().filter(which).findFirst().orElse(null),
                span -> span != null);
    }

    private List<SpanData> awaitSpans(Caller caller, int count, Predicate<SpanData> which) {
        return await().atMost(WAIT).until(() -> inTrace(caller).stream().filter(which).toList(),
                found -> found.size() >= count);
    }

    private SpanData onlySpan(Caller caller, Predicate<SpanData> which) {
        List<SpanData> found = inTrace(caller).stream().filter(which).toList();
        assertEquals(1, found.size(), () -> "one such span in the caller's trace: " + inTrace(caller));
        return found.getFirst();
    }

    private List<SpanData> inTrace(Caller caller) {
        return spans.getFinishedSpanItems().stream().filter(span -> span.getTraceId().equals(caller.traceId())).toList();
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    /** A client's own trace: the context it sends with its submission. */
    private record Caller(String traceId, String spanId) {

        static Caller fresh() {
            String trace = UUID.randomUUID().toString().replace("-", "");
            String span = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            return new Caller(trace, span);
        }

        String header() {
            return "00-" + traceId + "-" + spanId + "-01";
        }
    }
}

package io.taskfence.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Calls Taskfence's REST API (docs/DESIGN.md, "REST API" and "Remote workers") with one API key. It may name several
 * replicas: a call that cannot reach one, or that it answers with a 5xx, moves the client on to the next for its
 * following calls. Thread-safe.
 */
public final class TaskfenceClient {

    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "DEAD", "CANCELLED");
    /** Fields a newer service adds are ignored. */
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final List<URI> urls;
    private final String key;
    private final Duration timeout;
    private final HttpClient http;
    private final AtomicInteger next = new AtomicInteger();

    /**
     * @param urls the service's replicas, e.g. {@code http://localhost:8080}
     * @param key an API key's secret; null with authentication off
     * @param timeout how long one call may take (a claim's wait comes on top)
     */
    public TaskfenceClient(List<URI> urls, String key, Duration timeout) {
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("no URL of the service");
        }
        this.urls = List.copyOf(urls);
        this.key = key;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** A client of the replicas named in {@code urls}, separated by commas. */
    public static TaskfenceClient of(String urls, String key) {
        List<URI> parsed = new ArrayList<>();
        for (String url : urls.split(",")) {
            if (!url.isBlank()) {
                parsed.add(URI.create(url.strip().replaceAll("/+$", "")));
            }
        }
        return new TaskfenceClient(parsed, key, Duration.ofSeconds(30));
    }

    // Tasks

    /** Submits a task of {@code type}; answers the task as stored. */
    public JsonNode submit(String type, Object payload) {
        return submit(type, payload, (String) null);
    }

    /**
     * Submits a task of {@code type} as part of the caller's trace: {@code traceparent} is the caller's span (W3C Trace
     * Context), which a tracing service's spans of the task continue; null for none.
     */
    public JsonNode submit(String type, Object payload, String traceparent) {
        return call("POST", "/api/v1/tasks", Map.of("type", type, "payload", payload), timeout, traceparent);
    }

    /**
     * Submits a task of {@code type} with a dedupe key: while the task the key made has not started, the answer is that
     * task (ignored, replaced or debounced as {@code dedupe} says) and no task is made.
     */
    public JsonNode submit(String type, Object payload, Dedupe dedupe) {
        return call("POST", "/api/v1/tasks", Map.of("type", type, "payload", payload, "dedupe", dedupe.json()), timeout,
                null);
    }

    public JsonNode get(String taskId) {
        return call("GET", "/api/v1/tasks/" + encode(taskId), null, timeout);
    }

    /** The task once it has ended, or when {@code wait} (at most a minute) is over, whichever comes first. */
    public JsonNode get(String taskId, Duration wait) {
        Duration bounded = wait.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : wait;
        return call("GET", "/api/v1/tasks/" + encode(taskId) + "?wait=" + Math.max(1, bounded.toMillis()) + "ms", null,
                timeout.plus(bounded));
    }

    /** Submits a task and answers it once it has ended (SUCCEEDED, DEAD or CANCELLED). */
    public JsonNode submitAndWait(String type, Object payload, Duration atMost) throws InterruptedException {
        return waitFor(submit(type, payload).get("id").asText(), atMost);
    }

    /**
     * The task once it has ended. Each read waits on the service for the end ({@code GET ?wait=}), which answers as
     * soon as the task ends, on whichever replica.
     *
     * @throws IllegalStateException if it has not within {@code atMost}
     */
    public JsonNode waitFor(String taskId, Duration atMost) throws InterruptedException {
        long end = System.nanoTime() + atMost.toNanos();
        while (true) {
            long left = end - System.nanoTime();
            JsonNode task = left > 0 ? get(taskId, Duration.ofNanos(left)) : get(taskId);
            if (TERMINAL.contains(task.get("status").asText())) {
                return task;
            }
            if (System.nanoTime() - end >= 0) {
                throw new IllegalStateException("task " + taskId + " is " + task.get("status").asText() + " after " + atMost);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    // The worker API

    /** Up to {@code max} tasks of {@code types}, claimed for {@code worker}; waits up to {@code wait} for a first one. */
    public List<ClaimedTask> claim(List<String> types, int max, Duration wait, String worker) {
        return join(claimAsync(types, max, wait, worker));
    }

    /**
     * {@link #claim}, answered later: cancelling the future abandons the request, and the service hands back
     * whatever it had just claimed for it.
     */
    public CompletableFuture<List<ClaimedTask>> claimAsync(List<String> types, int max, Duration wait, String worker) {
        ObjectNode body = JSON.createObjectNode();
        body.putPOJO("types", types);
        body.put("max", max);
        body.put("wait", wait.toMillis() + "ms");
        if (worker != null) {
            body.put("worker", worker);
        }
        CompletableFuture<JsonNode> call = callAsync("POST", "/api/v1/claims", body, timeout.plus(wait), null);
        return cancelling(call, call.thenApply(answer -> {
            List<ClaimedTask> claimed = new ArrayList<>();
            for (JsonNode claim : answer.get("claims")) {
                claimed.add(JSON.convertValue(claim, ClaimedTask.class));
            }
            return claimed;
        }));
    }

    // Each call about a claim sends the claim's traceparent, so that a tracing service records it in the task's trace.

    /** Extends the claim's lease; answers its new end. */
    public String heartbeat(ClaimedTask claim) {
        return call("POST", claimPath(claim, "heartbeat"), null, timeout, claim.traceparent()).get("leaseUntil").asText();
    }

    /**
     * Reports the claim's progress: {@code progress} must write as a JSON object of at most 4 KiB (e.g.
     * {@code Map.of("done", 40, "total", 100, "message", "page 40")}); the task shows the latest within a second.
     * {@link Job#progress} sends at most one a second and never fails the job.
     */
    public void progress(ClaimedTask claim, Object progress) {
        ObjectNode body = JSON.createObjectNode();
        withProgress(body, progress);
        call("POST", claimPath(claim, "progress"), body, timeout, claim.traceparent());
    }

    /** Ends the claim with the task's result. */
    public void complete(ClaimedTask claim, Object result) {
        complete(claim, result, null);
    }

    /** Ends the claim with the task's result, after its last progress report ({@code progress}; null for none). */
    public void complete(ClaimedTask claim, Object result, Object progress) {
        ObjectNode body = JSON.createObjectNode();
        body.set("result", JSON.valueToTree(result));
        withProgress(body, progress);
        call("POST", claimPath(claim, "complete"), body, timeout, claim.traceparent());
    }

    /** Ends the claim with a failure; answers FAILED (retried) or DEAD. */
    public String fail(ClaimedTask claim, String error, boolean retryable, Duration retryAfter) {
        return fail(claim, error, retryable, retryAfter, null);
    }

    /** {@link #fail(ClaimedTask, String, boolean, Duration)}, after its last progress report (null for none). */
    public String fail(ClaimedTask claim, String error, boolean retryable, Duration retryAfter, Object progress) {
        ObjectNode body = JSON.createObjectNode();
        withProgress(body, progress);
        body.put("error", error == null || error.isEmpty() ? "failed" : error.substring(0, Math.min(error.length(), 10_000)));
        body.put("retryable", retryable);
        if (retryAfter != null) {
            body.put("retryAfter", retryAfter.toMillis() + "ms");
        }
        return call("POST", claimPath(claim, "fail"), body, timeout, claim.traceparent()).get("status").asText();
    }

    /** Hands the task back unfinished, its attempt not counted; answers PENDING (or DEAD past its deadline). */
    public String release(ClaimedTask claim) {
        return call("POST", claimPath(claim, "release"), null, timeout, claim.traceparent()).get("status").asText();
    }

    private static void withProgress(ObjectNode body, Object progress) {
        if (progress != null) {
            JsonNode report = JSON.valueToTree(progress);
            if (!report.isObject()) {
                throw new IllegalArgumentException("progress must write as a JSON object, not " + report.getNodeType());
            }
            body.set("progress", report);
        }
    }

    private static String claimPath(ClaimedTask claim, String action) {
        return "/api/v1/claims/" + encode(claim.claimId()) + "/" + action;
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8);
    }

    private JsonNode call(String method, String path, Object body, Duration within) {
        return call(method, path, body, within, null);
    }

    private JsonNode call(String method, String path, Object body, Duration within, String traceparent) {
        return join(callAsync(method, path, body, within, traceparent));
    }

    /** The answer's JSON; a refusal, or an unreachable replica, as the exception it completes with. */
    private CompletableFuture<JsonNode> callAsync(String method, String path, Object body, Duration within,
            String traceparent) {
        int used = next.get();
        URI base = urls.get(Math.floorMod(used, urls.size()));
        // Joined, not resolved: a base with a path (behind a proxy, https://host/taskfence) keeps it.
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(within)
                .header("Accept", "application/json");
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        if (traceparent != null) {
            request.header("traceparent", traceparent);
        }
        try {
            request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        } catch (IOException unwritable) {
            throw new IllegalArgumentException("the body cannot be written as JSON: " + unwritable.getMessage(), unwritable);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        CompletableFuture<HttpResponse<byte[]>> sent = http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        return cancelling(sent, sent.handle((answer, failure) -> {
            if (failure != null) {
                next.compareAndSet(used, used + 1);
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                throw new ServiceUnavailableException(0, JSON.createObjectNode().put("title", "Unreachable")
                        .put("detail", base + ": " + cause), null);
            }
            JsonNode json = answer.body().length == 0 ? JSON.createObjectNode() : readOrText(answer.body());
            int status = answer.statusCode();
            if (status < 300) {
                return json;
            }
            Duration retryAfter = answer.headers().firstValue("Retry-After").flatMap(TaskfenceClient::seconds).orElse(null);
            if (status == 409 && path.startsWith("/api/v1/claims/")) {
                throw new ClaimSupersededException(status, json);
            }
            if (status >= 500) {
                next.compareAndSet(used, used + 1);
                throw new ServiceUnavailableException(status, json, retryAfter);
            }
            throw new TaskfenceException(status, json, retryAfter);
        }));
    }

    /** {@code next}, whose cancel also cancels {@code first} (a dependent future's cancel reaches no further). */
    private static <T> CompletableFuture<T> cancelling(CompletableFuture<?> first, CompletableFuture<T> next) {
        next.whenComplete((value, failure) -> {
            if (next.isCancelled()) {
                first.cancel(true);
            }
        });
        return next;
    }

    /** The future's value, its failure thrown as it was. */
    private static <T> T join(CompletableFuture<T> answer) {
        try {
            return answer.get();
        } catch (ExecutionException failed) {
            if (failed.getCause() instanceof RuntimeException refused) {
                throw refused;
            }
            throw new IllegalStateException(failed.getCause());
        } catch (InterruptedException interrupted) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new ServiceUnavailableException(0, JSON.createObjectNode().put("title", "Interrupted")
                    .put("detail", "the call was interrupted"), null);
        }
    }

    private static Optional<Duration> seconds(String header) {
        try {
            return Optional.of(Duration.ofSeconds(Long.parseLong(header.strip())));
        } catch (NumberFormatException notSeconds) {
            return Optional.empty();
        }
    }

    private static JsonNode readOrText(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException notJson) {
            return JSON.createObjectNode().put("detail", new String(body, StandardCharsets.UTF_8));
        }
    }
}

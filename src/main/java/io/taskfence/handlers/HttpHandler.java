package io.taskfence.handlers;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Redirect;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import io.taskfence.TaskfenceConfig;
import io.taskfence.task.TaskHandler;
import io.taskfence.task.TaskOutcome;

/**
 * {@code http}: POSTs {@code payload.body} (any JSON value; {@code {}} when absent) as {@code application/json}
 * to {@code payload.url}, an http or https URL whose host is on {@code taskfence.http.allowed-hosts}.
 * A 2xx answer succeeds with the result {@code {"status", "body"}}; 5xx, 429, connection failures and
 * time-outs fail and are retried; any other answer (3xx, as redirects are never followed, and 4xx) is a
 * permanent failure. {@code taskfence.http.timeout} bounds the whole exchange, from connecting to the answer's
 * last byte.
 */
@ApplicationScoped
public class HttpHandler implements TaskHandler {

    /** At most this much of a response body is read and kept in the result. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private static final Set<String> SCHEMES = Set.of("http", "https");
    private static final String ALLOWED_HOSTS_KEY = "taskfence.http.allowed-hosts (TASKFENCE_HTTP_ALLOWED_HOSTS)";
    private static final Pattern JSON_MEDIA_TYPE = Pattern.compile("^\\s*application/([\\w.+-]+\\+)?json\\s*(;|$)",
            Pattern.CASE_INSENSITIVE);

    private final Set<String> allowedHosts;
    private final Duration timeout;
    private final ObjectReader jsonReader;
    private final HttpClient client;

    HttpHandler(TaskfenceConfig config, ObjectMapper json) {
        this.allowedHosts = config.http().allowedHosts().orElse(List.of()).stream().map(HttpHandler::normalised)
                .collect(Collectors.toUnmodifiableSet());
        this.timeout = config.http().timeout();
        this.jsonReader = json.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        // The allow-list is checked against the URL we are given; a followed redirect could lead anywhere.
        this.client = HttpClient.newBuilder().followRedirects(Redirect.NEVER).connectTimeout(timeout).build();
    }

    @PreDestroy
    void close() {
        client.shutdownNow();
    }

    @Override
    public String type() {
        return "http";
    }

    @Override
    public List<String> payloadProblems(ObjectNode payload) {
        JsonNode url = payload.path("url");
        if (!url.isTextual()) {
            return List.of("payload.url must be a string holding an http or https URL");
        }
        URI uri;
        try {
            uri = new URI(url.asText());
        } catch (URISyntaxException e) {
            return List.of("payload.url is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !SCHEMES.contains(scheme.toLowerCase(Locale.ROOT))) {
            return List.of("payload.url must be an http or https URL, not " + (scheme == null ? "a relative one" : scheme));
        }
        if (uri.getHost() == null || uri.getPort() > 65535) {
            return List.of("payload.url has no host and port that can be called");
        }
        String host = normalised(uri.getHost());
        if (!allowedHosts.contains(host)) {
            return List.of("payload.url's host '" + host + "' is not allowed: add it to " + ALLOWED_HOSTS_KEY
                    + (allowedHosts.isEmpty() ? ", which is empty" : ", which holds " + allowedHosts));
        }
        return List.of();
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        // Checked again here: this replica's allow-list may differ from the one that accepted the task.
        List<String> problems = payloadProblems(work.payload());
        if (!problems.isEmpty()) {
            return TaskOutcome.permanentFailure(String.join("; ", problems));
        }
        if (Thread.interrupted()) {
            throw new InterruptedException(); // cancelled already: do not start a call
        }
        URI url = URI.create(work.payload().get("url").asText());
        String host = normalised(url.getHost());
        JsonNode body = work.payload().path("body");
        HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout).header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString(body.isMissingNode() ? "{}" : body.toString(), UTF_8)).build();
        CompletableFuture<HttpResponse<BoundedBody.Bytes>> exchange = client.sendAsync(request,
                info -> new BoundedBody(MAX_BODY_BYTES));
        try {
            // The request's time-out ends when the headers arrive; this one also bounds reading the body.
            return outcome(host, exchange.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (InterruptedException e) {
            exchange.cancel(true); // aborts the exchange and closes its connection
            throw e;
        } catch (TimeoutException e) {
            exchange.cancel(true);
            return timedOut(host);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException wrapped ? wrapped.getCause() : e.getCause();
            if (cause instanceof HttpTimeoutException) {
                return timedOut(host);
            }
            return TaskOutcome.failure("POST to " + host + " failed: " + cause);
        }
    }

    private TaskOutcome outcome(String host, HttpResponse<BoundedBody.Bytes> response) {
        int status = response.statusCode();
        String answered = "POST to " + host + " answered " + status;
        if (status >= 200 && status < 300) {
            return TaskOutcome.success(result(response));
        }
        if (status >= 500 && status < 600 || status == 429) {
            return TaskOutcome.failure(answered);
        }
        if (status >= 300 && status < 400) {
            return TaskOutcome.permanentFailure(answered + ", a redirect, which is not followed"
                    + response.headers().firstValue("Location").map(to -> " (to " + to + ")").orElse(""));
        }
        return TaskOutcome.permanentFailure(answered);
    }

    private TaskOutcome timedOut(String host) {
        return TaskOutcome.failure("POST to " + host + " got no complete answer within " + timeout.toMillis() + " ms");
    }

    /** {@code {"status", "body"}}: the body as JSON when the server says it is and it parses, else as text. */
    private ObjectNode result(HttpResponse<BoundedBody.Bytes> response) {
        BoundedBody.Bytes body = response.body();
        // PostgreSQL's jsonb cannot hold U+0000, which a binary answer read as text may contain.
        String text = new String(body.bytes(), UTF_8).replace('\0', '\uFFFD');
        boolean declaredJson = response.headers().firstValue("Content-Type")
                .filter(type -> JSON_MEDIA_TYPE.matcher(type).find()).isPresent();
        ObjectNode result = JsonNodeFactory.instance.objectNode().put("status", response.statusCode());
        result.set("body", declaredJson && !body.truncated() ? json(text) : TextNode.valueOf(text));
        if (body.truncated()) {
            result.put("bodyTruncated", true);
        }
        return result;
    }

    private JsonNode json(String text) {
        if (text.contains("\\u0000")) {
            return TextNode.valueOf(text); // the same jsonb limit, escaped
        }
        try {
            return jsonReader.readValue(text);
        } catch (JsonProcessingException e) {
            return TextNode.valueOf(text);
        }
    }

    /** Host names compare case-insensitively; an IPv6 literal compares without its brackets. */
    private static String normalised(String host) {
        String trimmed = host.strip().toLowerCase(Locale.ROOT);
        return trimmed.startsWith("[") && trimmed.endsWith("]") ? trimmed.substring(1, trimmed.length() - 1) : trimmed;
    }
}

package io.taskfence.handlers.builtin;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import io.quarkus.runtime.Startup;
import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.TaskHandler;
import io.taskfence.handlers.TaskOutcome;
import io.taskfence.tracing.OutgoingCall;
import io.taskfence.tracing.TaskTraces;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.tracing.TracingPolicy;

/**
 * {@code http}: POSTs {@code payload.body} (any JSON value; {@code {}} when absent) as {@code application/json}
 * to {@code payload.url}, an http or https URL whose scheme, host and port are on
 * {@code taskfence.http.allowed-hosts} ({@link AllowedDestinations}).
 * <p>
 * Before the call it resolves the host and refuses, permanently, when any address is not public
 * ({@link NonPublicAddress}), unless the allow-list entry is that IP address itself; then it connects to the
 * address it checked. Vert.x's client connects to the address given as the request's server while the
 * {@code Host} header, TLS SNI and certificate verification use the URL's host, so no second lookup (which a
 * hostile DNS server could answer differently) happens between the check and the connection.
 * <p>
 * A 2xx answer succeeds with the result {@code {"status", "body"}}; 5xx, 429, connection failures and
 * time-outs fail and are retried; any other answer (3xx, as redirects are never followed, and 4xx) is a
 * permanent failure. {@code taskfence.http.timeout} bounds the whole exchange, from connecting to the answer's
 * last byte.
 */
@Startup // reads the allow-list at start, so that a malformed entry stops the replica there
@ApplicationScoped
public class HttpHandler implements TaskHandler {

    /** At most this much of a response body is read and kept in the result. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    private static final Logger LOG = Logger.getLogger(HttpHandler.class);
    private static final Set<String> SCHEMES = Set.of("http", "https");
    private static final Pattern JSON_MEDIA_TYPE = Pattern.compile("^\\s*application/([\\w.+-]+\\+)?json\\s*(;|$)",
            Pattern.CASE_INSENSITIVE);

    /** An answer whose body was read as far as it is kept. */
    private record Answer(int status, MultiMap headers, BoundedBody.Bytes body) {
    }

    private final AllowedDestinations allowed;
    /** Per key, the destinations its tasks may call, a part of {@link #allowed}; a key naming none may call all of it. */
    private final KeyDestinations byKey;
    private final HostResolver resolver;
    private final Duration timeout;
    private final ObjectReader jsonReader;
    private final HttpClient client;
    private final TaskTraces traces;

    HttpHandler(TaskfenceConfig config, KeyDestinations destinations, ObjectMapper json, HostResolver resolver, Vertx vertx, TaskTraces traces) {
        this.traces = traces;
        this.allowed = destinations.service();
        this.byKey = destinations;
        this.resolver = resolver;
        this.timeout = config.http().timeout();
        this.jsonReader = json.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        // Certificates are verified against the URL's host (verifyHost, the default), not the address.
        // One connection per running handler at most, per destination and address. The call's span is the
        // attempt's child, made here (TaskTraces): Vert.x's own would not know the attempt running on this thread.
        this.client = vertx.createHttpClient(
                new HttpClientOptions().setVerifyHost(true).setConnectTimeout(Math.toIntExact(timeout.toMillis()))
                        .setTracingPolicy(TracingPolicy.IGNORE),
                new PoolOptions().setHttp1MaxSize(config.worker().concurrency()));
    }

    @PreDestroy
    void close() {
        client.close();
    }

    @Override
    public String type() {
        return "http";
    }

    @Override
    public List<String> payloadProblems(ObjectNode payload) {
        return payloadProblems(payload, null);
    }

    /** As for every task, and the destination must be one of the owner's own {@code allowed-hosts}, if it has any. */
    @Override
    public List<String> payloadProblems(ObjectNode payload, String owner) {
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
        Destination destination;
        try {
            destination = Destination.of(uri);
        } catch (IllegalArgumentException e) {
            return List.of("payload.url's host cannot be called: " + e.getMessage());
        }
        Optional<String> whyNot = allowed.whyNot(destination);
        if (whyNot.isPresent()) {
            return List.of(whyNot.get());
        }
        Optional<AllowedDestinations> own = byKey.of(owner);
        if (own.isPresent() && !own.get().lists(destination)) {
            return List.of("payload.url's destination " + destination + " is not allowed for API key '" + owner
                    + "': " + byKey.listName(owner) + " does not list it");
        }
        return List.of();
    }

    @Override
    public TaskOutcome handle(Work work) throws InterruptedException {
        return handle(work, body -> Map.of());
    }

    /** Headers of a call made from the exact bytes it sends, at send time: the {@code callback} handler's signature. */
    interface HeadersOfBody {
        Map<String, String> of(byte[] body);
    }

    /** As {@link #handle(Work)}, the call carrying {@code signed}'s headers too; no client's value is a header. */
    TaskOutcome handle(Work work, HeadersOfBody signed) throws InterruptedException {
        // Checked again here: this replica's allow-list may differ from the one that accepted the task.
        List<String> problems = payloadProblems(work.payload(), work.owner());
        if (!problems.isEmpty()) {
            return TaskOutcome.permanentFailure(String.join("; ", problems));
        }
        if (Thread.interrupted()) {
            throw new InterruptedException(); // cancelled already: do not start a call
        }
        URI url = URI.create(work.payload().get("url").asText());
        Destination destination = Destination.of(url);
        InetAddress address;
        Optional<InetAddress> literal = destination.literalAddress();
        if (literal.isPresent()) {
            address = literal.get(); // the allow-list names this very address, whatever kind it is
        } else {
            List<InetAddress> addresses;
            try {
                addresses = resolver.addressesOf(destination.host());
            } catch (UnknownHostException e) {
                return TaskOutcome.failure("POST to " + destination.host() + " failed: " + e);
            }
            // Every address, not only the one called: a name with a private address among public ones is
            // either misconfigured or someone's way in.
            for (InetAddress resolved : addresses) {
                Optional<NonPublicAddress> nonPublic = NonPublicAddress.of(resolved);
                if (nonPublic.isPresent()) {
                    LOG.warnf("http task %s: %s resolves to %s, %s; refused", work.taskId(), destination.host(),
                            resolved.getHostAddress(), nonPublic.get().description());
                    return TaskOutcome.permanentFailure("payload.url's host '" + destination.host() + "' resolves to "
                            + nonPublic.get().description() + ", which is called only when "
                            + AllowedDestinations.KEY + " lists that address itself");
                }
            }
            address = addresses.getFirst();
        }
        if (Thread.interrupted()) {
            throw new InterruptedException(); // cancelled during the look-up, which does not wait interruptibly
        }
        return call(destination, url, address, work.payload().path("body"), signed);
    }

    /** POSTs to {@code address}, which was checked, as to {@code destination}. */
    private TaskOutcome call(Destination destination, URI url, InetAddress address, JsonNode body,
            HeadersOfBody signed) throws InterruptedException {
        // The address a name resolved to stays out of the task's error, which its tenant reads.
        String to = destination.host();
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST)
                .setSsl(destination.isHttps()).setHost(destination.host()).setPort(destination.port())
                // An address literal: Vert.x connects to it without a lookup.
                .setServer(SocketAddress.inetSocketAddress(destination.port(), address.getHostAddress()))
                .setURI(pathAndQuery(url)).setFollowRedirects(false)
                .putHeader(HttpHeaders.HOST, destination.authority())
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        OutgoingCall traced = traces.outgoing("POST", destination.host(), destination.port());
        traced.headers().forEach(request::putHeader);
        Buffer sent = Buffer.buffer(body.isMissingNode() ? "{}" : body.toString(), UTF_8.name());
        signed.of(sent.getBytes()).forEach(request::putHeader);
        Future<HttpClientRequest> started = client.request(request);
        // The body's reader is attached to the response before the request is sent: attached after, from this thread,
        // it could come after the whole response had arrived and ended (a fast server, an empty body).
        Future<Answer> answered = started.compose(req -> {
            Future<Answer> answer = req.response().compose(response -> BoundedBody.read(response, MAX_BODY_BYTES)
                    .map(kept -> new Answer(response.statusCode(), response.headers(), kept)));
            req.end(sent);
            return answer;
        });
        try {
            // Workers run handlers on threads of their own, never on an event loop, so waiting here holds none.
            // The connect time-out ends with the connection; this one bounds the whole exchange.
            Answer answer = answered.toCompletionStage().toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            traced.answered(answer.status());
            return outcome(to, answer);
        } catch (InterruptedException e) {
            started.onSuccess(HttpClientRequest::reset); // aborts the exchange and closes its connection
            traced.failed("interrupted");
            throw e;
        } catch (TimeoutException e) {
            started.onSuccess(HttpClientRequest::reset);
            traced.failed("timed out");
            return timedOut(to);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException wrapped ? wrapped.getCause() : e.getCause();
            // Netty's messages name the address connected to ("Connection refused: /10.0.0.5:80"): the host
            // stands in for it, as in the rest of the error.
            String why = String.valueOf(cause);
            if (destination.literalAddress().isEmpty()) {
                why = why.replace(address.getHostAddress(), destination.host());
            }
            traced.failed(why);
            return TaskOutcome.failure("POST to " + to + " failed: " + why);
        }
    }

    private static String pathAndQuery(URI url) {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        return url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
    }

    private TaskOutcome outcome(String to, Answer answer) {
        int status = answer.status();
        String answered = "POST to " + to + " answered " + status;
        if (status >= 200 && status < 300) {
            return TaskOutcome.success(result(answer));
        }
        if (status >= 500 && status < 600 || status == 429) {
            return TaskOutcome.failure(answered);
        }
        if (status >= 300 && status < 400) {
            // Its Location is not recorded: a redirect may carry a token in its URL.
            return TaskOutcome.permanentFailure(answered + ", a redirect, which is not followed");
        }
        return TaskOutcome.permanentFailure(answered);
    }

    private TaskOutcome timedOut(String to) {
        return TaskOutcome.failure("POST to " + to + " got no complete answer within " + timeout.toMillis() + " ms");
    }

    /** {@code {"status", "body"}}: the body as JSON when the server says it is and it parses, else as text. */
    private ObjectNode result(Answer answer) {
        BoundedBody.Bytes body = answer.body();
        // PostgreSQL's jsonb cannot hold U+0000, which a binary answer read as text may contain.
        String text = new String(body.bytes(), UTF_8).replace('\0', '\uFFFD');
        boolean declaredJson = Optional.ofNullable(answer.headers().get("Content-Type"))
                .filter(type -> JSON_MEDIA_TYPE.matcher(type).find()).isPresent();
        ObjectNode result = JsonNodeFactory.instance.objectNode().put("status", answer.status());
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
}

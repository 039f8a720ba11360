package io.taskfence.tracing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.taskfence.lock.LockSettings;

/**
 * Where a task's spans start. A task keeps only its submission's {@code traceparent} (W3C Trace Context, whatever
 * the propagators; its {@code tracestate} and baggage are not kept): every span of the task is started from it, on whichever replica, however long
 * after the submission, so that the task's attempts and calls join the trace of the request that submitted it.
 */
@ApplicationScoped
public class TaskTraces {

    static final String TRACEPARENT = "traceparent";
    static final AttributeKey<String> TASK_ID = AttributeKey.stringKey("taskfence.task.id");
    static final AttributeKey<String> TASK_TYPE = AttributeKey.stringKey("taskfence.task.type");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("taskfence.task.attempt");
    static final AttributeKey<String> REPLICA = AttributeKey.stringKey("taskfence.replica");
    static final AttributeKey<String> WORKER = AttributeKey.stringKey("taskfence.worker");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("taskfence.task.outcome");

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final TextMapGetter<String> STORED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final String replica;
    /**
     * Whether this replica traces. Off, nothing is stored or passed on, not even a context stored while it was on
     * (a no-op span started from one would carry it on).
     */
    private final boolean on;

    TaskTraces(OpenTelemetry openTelemetry, LockSettings settings,
            @ConfigProperty(name = "quarkus.otel.sdk.disabled") boolean sdkDisabled) {
        this.tracer = openTelemetry.getTracer("io.taskfence");
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
        this.replica = settings.replicaId();
        this.on = !sdkDisabled;
    }

    /** The calling thread's span as a {@code traceparent} to store with a task submitted now; null for none. */
    public String current() {
        return on ? traceparent(Context.current()) : null;
    }

    /**
     * Starts the span of one attempt this replica runs: a child of the task's submission ({@code traceParent} as
     * stored, null for none: the span starts a trace of its own).
     */
    public AttemptSpan attempt(UUID taskId, String type, int attempt, String traceParent) {
        if (!on) {
            return new AttemptSpan(Span.getInvalid());
        }
        return new AttemptSpan(task("process " + type, SpanKind.CONSUMER, taskId, type, attempt, traceParent).startSpan());
    }

    /**
     * Records a remote worker's claim of one attempt, a span ended at once; its {@code traceparent}, which the claim
     * answer carries, is what the worker's own spans and its later calls for the claim continue. Null for none.
     */
    public String claimed(UUID taskId, String type, int attempt, String traceParent, String worker) {
        if (!on) {
            return null;
        }
        Span span = task("claim " + type, SpanKind.CONSUMER, taskId, type, attempt, traceParent)
                .setAttribute(WORKER, worker).startSpan();
        span.end();
        return traceparent(Context.root().with(span));
    }

    /** Marks the calling thread's span (a remote worker's request about its claim) with the outcome it reported. */
    public void reported(String outcome) {
        Span.current().setAttribute(OUTCOME, outcome);
    }

    /**
     * Starts the span of an outgoing HTTP call, a child of the calling thread's span (an attempt's); the caller sends
     * {@link OutgoingCall#headers()} with the request, written by the configured propagators
     * ({@code quarkus.otel.propagators}: W3C Trace Context and Baggage by default).
     */
    public OutgoingCall outgoing(String method, String host, int port) {
        if (!on) {
            return new OutgoingCall(Span.getInvalid(), Map.of());
        }
        Span span = tracer.spanBuilder(method).setSpanKind(SpanKind.CLIENT)
                .setAttribute("http.request.method", method).setAttribute("server.address", host)
                .setAttribute("server.port", (long) port).startSpan();
        Map<String, String> headers = new HashMap<>(4);
        propagator.inject(Context.current().with(span), headers, Map::put);
        return new OutgoingCall(span, Map.copyOf(headers));
    }

    private SpanBuilder task(String name, SpanKind kind, UUID taskId, String type, int attempt, String traceParent) {
        Context parent = traceParent == null ? Context.root() : W3C.extract(Context.root(), traceParent, STORED);
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent).setAttribute(TASK_ID, taskId.toString())
                .setAttribute(TASK_TYPE, type).setAttribute(ATTEMPT, (long) attempt).setAttribute(REPLICA, replica);
    }

    private static String traceparent(Context context) {
        if (!Span.fromContext(context).getSpanContext().isValid()) {
            return null;
        }
        Map<String, String> headers = new HashMap<>(2);
        W3C.inject(context, headers, Map::put);
        return headers.get(TRACEPARENT);
    }
}

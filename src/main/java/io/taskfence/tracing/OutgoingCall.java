package io.taskfence.tracing;

import java.util.Map;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;

/** The span of one outgoing HTTP call, and the headers that carry it to the server. */
public final class OutgoingCall {

    private final Span span;
    private final Map<String, String> headers;

    OutgoingCall(Span span, Map<String, String> headers) {
        this.span = span;
        this.headers = headers;
    }

    /** {@code traceparent} (and whatever else the propagator writes) to send; empty when tracing is off. */
    public Map<String, String> headers() {
        return headers;
    }

    /** Ends it with the server's answer; 4xx and 5xx are errors, as OpenTelemetry's HTTP conventions have them for a client. */
    public void answered(int status) {
        span.setAttribute("http.response.status_code", (long) status);
        if (status >= 400) {
            span.setStatus(StatusCode.ERROR);
        }
        span.end();
    }

    /** Ends it without an answer: {@code why} the call failed (refused, timed out, cancelled). */
    public void failed(String why) {
        span.setStatus(StatusCode.ERROR, why);
        span.end();
    }
}

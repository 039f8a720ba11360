package io.taskfence.tracing;

import java.util.concurrent.Callable;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;

/** One attempt's span: the handler runs {@link #within} it, and its outcome {@link #end}s it. */
public final class AttemptSpan {

    private final Span span;

    AttemptSpan(Span span) {
        this.span = span;
    }

    /** Runs {@code handler} on the calling thread with this span current, so that what it calls is its child. */
    public <T> T within(Callable<T> handler) throws Exception {
        try (Scope current = span.makeCurrent()) {
            return handler.call();
        }
    }

    /** Ends it with the attempt's outcome ({@code success}, {@code failure}, ...), and {@code error} if one failed. */
    public void end(String outcome, String error) {
        span.setAttribute(TaskTraces.OUTCOME, outcome);
        if (error != null) {
            span.setStatus(StatusCode.ERROR, error);
        }
        span.end();
    }
}

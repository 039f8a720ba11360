package io.taskfence.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;

/** One attempt's span, current on the thread that started it until {@link #end} is called there. */
public final class AttemptSpan {

    private final Span span;
    private final Scope scope;

    AttemptSpan(Span span, Scope scope) {
        this.span = span;
        this.scope = scope;
    }

    /** Ends it with the attempt's outcome ({@code success}, {@code failure}, ...), and {@code error} if one failed. */
    public void end(String outcome, String error) {
        span.setAttribute(TaskTraces.OUTCOME, outcome);
        if (error != null) {
            span.setStatus(StatusCode.ERROR, error);
        }
        scope.close();
        span.end();
    }
}

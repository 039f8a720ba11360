package io.taskfence.tracing;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;

/**
 * The spans of a test run, kept in memory: Quarkus exports to every {@code SpanExporter} bean
 * ({@code quarkus.otel.traces.exporter=cdi}), only while the SDK is on ({@link TracingTest.Traced}).
 */
final class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}

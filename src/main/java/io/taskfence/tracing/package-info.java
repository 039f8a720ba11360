/**
 * Traces of tasks (DESIGN.md, "Tracing"): a submission's trace context is stored with its task, and each attempt, a
 * remote worker's claim and an {@code http} task's call continue that trace. Off unless the OpenTelemetry SDK is on
 * ({@code quarkus.otel.sdk.disabled=false}): while it is off, no task stores a context and every span here is a no-op.
 *
 * <p>May import lock.
 */
package io.taskfence.tracing;

/**
 * Logging context (MDC) helpers and log-level warnings.
 *
 * <p>May import nothing.
 */
package io.taskfence.logging;

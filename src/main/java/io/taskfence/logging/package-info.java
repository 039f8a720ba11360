/**
 * Logging context (MDC) helpers and log-level warnings.
 *
 * <p>Imports no other Taskfence package.
 */
package io.taskfence.logging;

/**
 * Liveness, readiness and startup probes.
 *
 * <p>May import store and worker (to report on them).
 */
package io.taskfence.health;

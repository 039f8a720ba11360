/**
 * Liveness, readiness and startup probes; readiness reports the connection pools (PoolReadiness).
 *
 * <p>May import store and worker (to report on them).
 */
package io.taskfence.health;

/**
 * The Redis lock that hands out fencing tokens: INCR for the token, SET NX PX for the lease, compare-and-delete to
 * release (Lua scripts under resources/lock), the watchdog that renews a lease, and release signals for waiters.
 *
 * <p>May import logging (it knows nothing of tasks).
 */
package io.taskfence.lock;

/**
 * Redis pub/sub channels that make replicas look sooner: each message only shortens a wait (a cancel noticed before the
 * next heartbeat, a remote claim woken when its type's stream was pushed to); the table decides, so a lost, late or
 * forged message changes nothing but the delay.
 *
 * <p>May import nothing.
 */
package io.taskfence.signals;

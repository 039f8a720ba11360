/**
 * The workers of a replica: they read the queue, claim tasks, run each Attempt (its lease held by heartbeats) and write
 * its outcome; successes are grouped into batches.
 *
 * <p>May import handlers, lock, logging, queue, signals, store, task, task.transition, tracing and types.
 */
package io.taskfence.worker;

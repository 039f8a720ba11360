/**
 * The workers of a replica: they read the queue, claim tasks, run each Attempt (its lease held by heartbeats) and
 * write its outcome; successes are grouped into batches.
 *
 * <p>May import task, task.transition, handlers, types, queue, tracing, lock, store, logging.
 */
package io.taskfence.worker;

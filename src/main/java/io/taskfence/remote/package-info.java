/**
 * Remote workers (DESIGN.md, "Remote workers"): the replica reads a remote type's stream on a worker's behalf, claims
 * through the same conditional transition as its own workers, and takes the worker's heartbeats, results and failures
 * for its claim, refusing each once the claim no longer holds.
 *
 * <p>May import lock, queue, signals, task, task.query, task.transition and types.
 */
package io.taskfence.remote;

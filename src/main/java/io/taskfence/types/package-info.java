/**
 * Task types and their limits: pause and resume, concurrency, queue and rate limits, and the room they leave a dispatch
 * batch (DispatchRoom).
 *
 * <p>May import handlers, lock, signals and store.
 */
package io.taskfence.types;

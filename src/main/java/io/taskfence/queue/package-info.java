/**
 * The Redis stream that carries enqueued task ids to the workers; a push is checked against the dispatch lock's lease
 * in the same script.
 *
 * <p>May import lock and signals.
 */
package io.taskfence.queue;

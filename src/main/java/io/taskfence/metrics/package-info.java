/**
 * Gauges of the backlog and the queue, read at most once per scrape interval.
 *
 * <p>May import queue and task.
 */
package io.taskfence.metrics;

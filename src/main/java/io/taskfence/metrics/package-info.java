/**
 * Gauges of the backlog and the queue, read at most once per scrape interval.
 *
 * <p>May import queue, task, task.followup, task.query and types.
 */
package io.taskfence.metrics;

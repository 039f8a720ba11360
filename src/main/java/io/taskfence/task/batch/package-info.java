/**
 * Batches (DESIGN.md, "Batches"): reading and closing them, and the fenced fold that counts their items' ends and
 * releases a complete batch's then task. Tasks join a batch when submitted (task.submit).
 *
 * <p>May import task, task.transition (its meters) and store.
 */
package io.taskfence.task.batch;

/**
 * Batches (DESIGN.md, "Batches"): reading and closing them, and the fenced fold that counts their items' ends and
 * releases a complete batch's then task. Tasks join a batch when submitted (task.submit).
 *
 * <p>May import store, task and task.transition (its meters).
 */
package io.taskfence.task.batch;

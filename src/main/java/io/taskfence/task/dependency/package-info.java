/**
 * Dependencies (DESIGN.md, "Dependencies"): Dependents moves the WAITING tasks whose dependencies ended, a bounded
 * chunk of edges at a time, for the follow-ups job.
 *
 * <p>May import task and task.transition (its meters).
 */
package io.taskfence.task.dependency;

/**
 * /api/v1/batches (BatchResource): the batches a bulk submission with then or batchId makes or joins (DESIGN.md,
 * "Batches"), listed, read and closed.
 *
 * <p>May import api, api.auth, api.problem and task.batch.
 */
package io.taskfence.api.batches;

/**
 * Every error as application/problem+json: the Problem record, and the mappers of request, validation and domain
 * failures.
 *
 * <p>May import api.auth, lock, queue, remote, store, task.query and task.submit.outcome (the domain's exceptions, to
 * map them).
 */
package io.taskfence.api.problem;

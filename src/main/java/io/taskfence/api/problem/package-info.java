/**
 * Every error as application/problem+json: the Problem record, and the mappers of request, validation and domain
 * failures.
 *
 * <p>May import the domain's exceptions (task, store, queue, lock) to map them; nothing in api above it.
 */
package io.taskfence.api.problem;

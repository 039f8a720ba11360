/**
 * The worker API, /api/v1/claims (ClaimResource; DESIGN.md, "Remote workers"): a worker key claims tasks of remote
 * types, extends its claims' leases, and ends them with a result or a failure; and /api/v1/workers (WorkersResource),
 * the workers seen in the last hour, for admin keys.
 *
 * <p>May import api, api.auth, api.problem, remote, task, task.query, task.transition, tracing and types.
 */
package io.taskfence.api.claims;

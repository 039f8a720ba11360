/**
 * /api/v1/audit (AuditResource): the audit log, listed for admin keys; and the filter that gives each request its id
 * and records the changes admin keys ask for (AuditedRequests).
 *
 * <p>May import api, api.auth, api.problem and audit.
 */
package io.taskfence.api.audit;

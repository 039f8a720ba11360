/**
 * The audit log: who changed what through the API with an admin key, when, and how it was answered (AuditLog, the
 * one seam to its table; AuditEntry).
 *
 * <p>May import store.
 */
package io.taskfence.audit;

/**
 * API keys: their configuration rules, authentication of a request, the caller's roles and owner name.
 *
 * <p>May import io.taskfence.task (for the caller's TaskScope).
 */
package io.taskfence.api.auth;

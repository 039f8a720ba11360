/**
 * API keys: their configuration rules, authentication of a request, the caller's roles and owner name, its request
 * rate and its caps on held resources (HeldPerKey).
 *
 * <p>May import handlers.builtin, keys, lock, task and types.
 */
package io.taskfence.api.auth;

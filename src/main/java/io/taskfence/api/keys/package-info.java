/**
 * /api/v1/keys (KeysResource): API keys an admin makes, lists, changes, rotates and revokes at run time; configured
 * keys are listed, not changed.
 *
 * <p>May import api, api.auth, api.problem, handlers.builtin, keys and types.
 */
package io.taskfence.api.keys;

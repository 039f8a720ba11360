/**
 * API keys as the service knows them (DESIGN.md, "API keys"): those configured ({@code taskfence.auth.keys.<name>}) and
 * those made through the API and kept in {@code api_keys} (secrets as digests only), one directory every per-key
 * setting is read through, and the rule that a key grants no more than the key that makes it has.
 *
 * <p>May import signals, store and types.
 */
package io.taskfence.keys;

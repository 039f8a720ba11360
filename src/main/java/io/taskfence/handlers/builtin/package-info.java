/**
 * The built-in handlers: noop, sleep, flaky (demo and tests) and http (calls an allowed URL, with address checks).
 *
 * <p>May import io.taskfence.handlers, tracing and the top level's configuration.
 */
package io.taskfence.handlers.builtin;

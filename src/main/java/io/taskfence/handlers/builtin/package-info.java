/**
 * The built-in handlers: noop, sleep, flaky (demo and tests) and http (calls an allowed URL, with address checks).
 *
 * <p>May import handlers and tracing.
 */
package io.taskfence.handlers.builtin;

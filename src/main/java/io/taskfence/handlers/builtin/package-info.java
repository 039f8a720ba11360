/**
 * The built-in handlers: noop, sleep, flaky (demo and tests), http (calls an allowed URL, with address checks) and
 * callback (an http call signed for its owner: CallbackSignatures, CallbackSecret).
 *
 * <p>May import handlers and tracing.
 */
package io.taskfence.handlers.builtin;

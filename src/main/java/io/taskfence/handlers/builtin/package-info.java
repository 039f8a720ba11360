/**
 * The built-in handlers: noop, sleep, flaky (demo and tests), http (calls an allowed URL, with address checks) and
 * callback (an http call signed for its owner: CallbackSignatures, CallbackSecret).
 *
 * <p>May import handlers, keys and tracing.
 */
package io.taskfence.handlers.builtin;

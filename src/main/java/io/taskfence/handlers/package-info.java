/**
 * The handler SPI: a TaskHandler runs one attempt of a task of its type and returns a TaskOutcome; TaskHandlers finds
 * the handler of a type.
 *
 * <p>May import nothing (handlers know nothing of storage or locks).
 */
package io.taskfence.handlers;

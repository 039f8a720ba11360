/**
 * Taskfence: batch tasks in PostgreSQL, moved through their states by conditional updates, with the jobs that must
 * run on one replica at a time fenced by a Redis lock.
 *
 * <p>Top level: the configuration ({@code TaskfenceConfig}) every package reads, and the wiring of the lock
 * package to it.
 */
package io.taskfence;

/**
 * The dashboard's entry page; its files are static resources under META-INF/resources/dashboard.
 *
 * <p>May import nothing.
 */
package io.taskfence.dashboard;

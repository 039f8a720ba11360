/**
 * The dashboard's entry page; its files are static resources under META-INF/resources/dashboard.
 */
package io.taskfence.dashboard;

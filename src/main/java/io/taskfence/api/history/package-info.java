/**
 * The history endpoint (HistoryResource): a series of the history of work, in steps.
 *
 * <p>May import api, api.auth, api.problem and history.
 */
package io.taskfence.api.history;

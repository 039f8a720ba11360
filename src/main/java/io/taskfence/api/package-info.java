/**
 * The REST resources under /api/v1 and their request and answer records; the checks of a submission
 * (SubmissionChecks).
 *
 * <p>May import every lower room. Never calls the worker or the dispatcher: it fires TasksBecameDue and
 * TaskCancelled, which they observe.
 */
package io.taskfence.api;

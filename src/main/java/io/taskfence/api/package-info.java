/**
 * The REST API under /api/v1, one sub-package per resource (tasks, batches, actions, schedules, types, claims); here
 * what they share: the checks a task passes whether a submission or a schedule makes it (SubmissionChecks), ids, page
 * limits and waits as paths and queries write them (CanonicalIds, PageLimit, Delay, LongPoll), the refusal of
 * cross-site changes (CrossSiteRequests), the OpenAPI document's error answers (ProblemAnswers), values written in
 * place (ValueSchemas) and a search's header (SearchedFromHeader), and the cluster's stats (StatsResource). Nothing
 * here imports the resources' sub-packages.
 *
 * <p>May import api.problem, handlers, keys, lock, queue, task, task.query and types. No resource calls the worker or the
 * dispatcher: they fire TasksBecameDue and TaskCancelled, which those observe.
 */
package io.taskfence.api;

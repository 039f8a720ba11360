/**
 * Every later change of tasks.status, one class per actor: DispatchBatch (dispatcher; DueSelection chooses the rows of
 * its batch), AttemptTransitions (a worker's attempt), OperatorControls (cancel), LeaseRecovery (recovery job); the SQL
 * they share is in TransitionSql.
 *
 * <p>May import handlers, keys, store, task and types.
 */
package io.taskfence.task.transition;

package io.taskfence.task.submit.outcome;

/**
 * A submission whose {@code dependsOn} cannot be met; nothing was stored. {@code detail} names the dependency: a task
 * the submitting key does not own (or none at all), one that has ended DEAD or CANCELLED already while the
 * submission would be cancelled by that ({@code onDependencyFailure} cancel, the default), or the then task of the
 * batch the submission joins, which waits for it.
 */
public record UnmetDependency(String detail) implements Submitted {
}

package io.taskfence.task.submit.outcome;

/** A single submission's {@link UnmetDependency}: nothing was stored. */
public final class UnmetDependencyException extends RuntimeException {

    public UnmetDependencyException(UnmetDependency unmet) {
        super(unmet.detail());
    }
}

package io.taskfence.api;

/** Thrown by the resources to answer with a problem; carries no stack trace, it is an answer, not a fault. */
final class ProblemException extends RuntimeException {

    private final transient Problem problem;

    ProblemException(Problem problem) {
        super(problem.detail(), null, false, false);
        this.problem = problem;
    }

    Problem problem() {
        return problem;
    }
}

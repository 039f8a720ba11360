package io.taskfence.api.problem;

/** Thrown by the resources to answer with a problem; carries no stack trace, it is an answer, not a fault. */
public final class ProblemException extends RuntimeException {

    private final transient Problem problem;

    public ProblemException(Problem problem) {
        super(problem.detail(), null, false, false);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}

package io.taskfence.api.problem;

import java.util.List;

import jakarta.ws.rs.core.Response.Status;

/** The problems the resources raise themselves. */
public final class Problems {

    private Problems() {
    }

    public static ProblemException of(Status status, String detail) {
        return new ProblemException(Problem.of(status, detail));
    }

    /**
     * A parameter ({@code in} "query" or "header") refused as Bean Validation's violations are answered, so
     * that every bad one names itself the same way.
     */
    public static ProblemException invalid(String in, String name, String message) {
        return new ProblemException(Problem.invalid(List.of(new Problem.Violation(name, in, message))));
    }

    /** A problem with one field of the body, named in the problem's {@code field}. */
    public static ProblemException about(String field, Status status, String detail) {
        return new ProblemException(Problem.of(status, detail).withField(field));
    }

    public static ProblemException unprocessable(String field, String detail) {
        return new ProblemException(Problem.unprocessable(detail).withField(field));
    }
}

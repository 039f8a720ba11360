package io.taskfence.api;

import jakarta.ws.rs.core.Response.Status;

/** The problems the resources raise themselves. */
final class Problems {

    private Problems() {
    }

    static ProblemException of(Status status, String detail) {
        return new ProblemException(Problem.of(status, detail));
    }

    static ProblemException unprocessable(String detail) {
        return new ProblemException(Problem.unprocessable(detail));
    }
}

package io.taskfence.api;

import jakarta.ws.rs.core.Response.Status;

import io.quarkiverse.resteasy.problem.HttpProblem;

/** RFC 9457 problem details for the errors this API raises itself. */
final class Problems {

    static final int UNPROCESSABLE_CONTENT = 422;

    private Problems() {
    }

    static HttpProblem of(Status status, String detail) {
        return of(status.getStatusCode(), status.getReasonPhrase(), detail);
    }

    static HttpProblem unprocessable(String detail) {
        return of(UNPROCESSABLE_CONTENT, "Unprocessable Content", detail);
    }

    private static HttpProblem of(int status, String title, String detail) {
        return HttpProblem.builder().withStatus(status).withTitle(title).withDetail(detail).build();
    }
}

package io.taskfence.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 409 on a claim: it no longer holds its task (cancelled, finished, or taken over). Stop; write nothing more. */
public final class ClaimSupersededException extends TaskfenceException {

    public ClaimSupersededException(int status, JsonNode problem) {
        super(status, problem);
    }
}

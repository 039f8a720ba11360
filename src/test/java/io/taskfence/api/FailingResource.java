package io.taskfence.api;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** Tests only: an endpoint with a bug, to see what a client gets when the server fails. */
@PermitAll // the service denies endpoints that say nothing about who may call them
@Path("/test-only/failure")
public class FailingResource {

    static final String INTERNALS = "connection string postgres://secret@db";

    @GET
    public String fail() {
        throw new IllegalStateException(INTERNALS);
    }
}

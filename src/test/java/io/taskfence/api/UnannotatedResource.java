package io.taskfence.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * Tests only: an endpoint whose author forgot to say who may call it. The service denies it to every caller
 * ({@code quarkus.security.jaxrs.deny-unannotated-endpoints}), instead of opening it to anyone.
 */
@Path("/test-only/unannotated")
public class UnannotatedResource {

    @GET
    public String secrets() {
        return "every task of every tenant";
    }
}

package io.taskfence.task;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;

import javax.sql.DataSource;

import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;

import io.taskfence.store.TaskStoreException;

/**
 * Tests only: hands PostgreSQL a value it refuses, as a gap in the API's checks would, to see what a client
 * gets for a data exception (SQLState class 22) and that it is not confused with an outage.
 */
@PermitAll // the service denies endpoints that say nothing about who may call them
@Path("/test-only/refused/{type}")
public class RefusingResource {

    /** The casts whose refusals are tried: a value of the request's choosing for each. */
    private static final Map<String, String> CASTS = Map.of("int", "?::int", "numeric", "?::numeric",
            "timestamptz", "?::timestamptz", "jsonb", "?::jsonb");

    private final DataSource db;

    RefusingResource(DataSource db) {
        this.db = db;
    }

    @GET
    public String cast(@PathParam("type") String type, @QueryParam("value") String value) {
        try (Connection connection = db.getConnection();
                PreparedStatement cast = connection.prepareStatement("select (" + CASTS.get(type) + ")::text")) {
            cast.setString(1, value);
            cast.executeQuery().close();
            return "stored";
        } catch (SQLException e) {
            throw new TaskStoreException(e);
        }
    }
}

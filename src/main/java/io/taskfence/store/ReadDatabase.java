package io.taskfence.store;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import jakarta.inject.Singleton;

/**
 * The API's reads (DESIGN.md, "REST API", "Bulkheads"): connections of a pool of their own, {@value #POOL}, whose
 * sessions run with a {@code statement_timeout} ({@code taskfence.api.read-timeout}) and without parallel workers,
 * so that no read, however broad, takes a connection of the data path (heartbeats, claims, completions, dispatch,
 * submissions: {@link TaskDatabase}) or more than one core of PostgreSQL for long. A read stopped by the time-out is
 * a {@link TaskStoreException} whose {@link TaskStoreException#readTimedOut()} says so.
 */
@Singleton
public final class ReadDatabase {

    /** The named datasource of the reads (quarkus.datasource.reads.*). */
    public static final String POOL = "reads";

    private final DataSource reads;

    ReadDatabase(@io.quarkus.agroal.DataSource(POOL) DataSource reads) {
        this.reads = reads;
    }

    public <T> T read(TaskDatabase.Work<T> work) {
        try (Connection connection = reads.getConnection()) {
            return work.in(connection);
        } catch (SQLException e) {
            throw TaskStoreException.ofRead(e);
        }
    }
}

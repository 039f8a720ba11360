package io.taskfence.audit;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.FenceToken;
import io.taskfence.store.ReadDatabase;
import io.taskfence.store.TaskDatabase;

/**
 * The table {@code audit_log} (migration V30; DESIGN.md, "REST API", "Audit log"): the one seam to it. Entries are
 * written one per admin change, read newest first a page at a time, and deleted by retention in batches.
 */
@ApplicationScoped
public class AuditLog {

    private static final String INSERT = "insert into audit_log (key_name, request_id, operation, method, path, status, "
            + "location) values (?, ?, ?, ?, ?, ?, ?)";
    private static final String COLUMNS = "id, at, key_name, request_id, operation, method, path, status, location";
    // Each filter is off when its parameter is null; id < before pages (the index on id, or on key_name and id).
    private static final String PAGE = "select " + COLUMNS + " from audit_log where (?::text is null or key_name = ?)"
            + " and (?::text is null or operation = ?) and (?::timestamptz is null or at >= ?)"
            + " and (?::timestamptz is null or at < ?) and (?::bigint is null or id < ?) order by id desc limit ?";
    private static final String DELETE_OLD = "delete from audit_log where id in (select id from audit_log"
            + " where at < now() - ?::interval order by at limit ?)";

    /** What a listing asks for: each field null for "any"; {@code before} an entry's id, to page on. */
    public record Filter(String key, String operation, Instant from, Instant to, Long before) {
    }

    private final TaskDatabase database;
    private final ReadDatabase reads;

    AuditLog(TaskDatabase database, ReadDatabase reads) {
        this.database = database;
        this.reads = reads;
    }

    public void record(AuditEntry entry) {
        database.inConnection(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                insert.setString(1, entry.key());
                insert.setString(2, entry.requestId());
                insert.setString(3, entry.operation());
                insert.setString(4, entry.method());
                insert.setString(5, entry.path());
                insert.setInt(6, entry.status());
                insert.setString(7, entry.location());
                return insert.executeUpdate();
            }
        });
    }

    /** Up to {@code limit} entries matching {@code filter}, newest first. */
    public List<AuditEntry> page(Filter filter, int limit) {
        return reads.read(connection -> {
            try (PreparedStatement select = connection.prepareStatement(PAGE)) {
                bindTwice(select, 1, filter.key());
                bindTwice(select, 3, filter.operation());
                bindTwice(select, 5, filter.from() == null ? null : Timestamp.from(filter.from()));
                bindTwice(select, 7, filter.to() == null ? null : Timestamp.from(filter.to()));
                bindTwice(select, 9, filter.before());
                select.setInt(11, limit);
                List<AuditEntry> entries = new ArrayList<>();
                try (ResultSet row = select.executeQuery()) {
                    while (row.next()) {
                        entries.add(entry(row));
                    }
                }
                return entries;
            }
        });
    }

    /** Deletes up to {@code batchSize} entries older than {@code age}, under {@code fence}; how many it deleted. */
    public int deleteOlderThan(FenceToken fence, Duration age, int batchSize) {
        return database.fenced(fence, connection -> {
            try (PreparedStatement delete = connection.prepareStatement(DELETE_OLD)) {
                delete.setString(1, age.toMillis() + " milliseconds");
                delete.setInt(2, batchSize);
                return delete.executeUpdate();
            }
        });
    }

    private static void bindTwice(PreparedStatement statement, int index, Object value) throws SQLException {
        statement.setObject(index, value);
        statement.setObject(index + 1, value);
    }

    private static AuditEntry entry(ResultSet row) throws SQLException {
        return new AuditEntry(row.getLong("id"), row.getTimestamp("at").toInstant(), row.getString("key_name"),
                row.getString("request_id"), row.getString("operation"), row.getString("method"),
                row.getString("path"), row.getInt("status"), row.getString("location"));
    }
}

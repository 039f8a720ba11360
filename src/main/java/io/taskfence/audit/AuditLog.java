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
    private static final String SELECT = "select id, at, key_name, request_id, operation, method, path, status, location"
            + " from audit_log where true";
    private static final String NEWEST_FIRST = " order by id desc limit ?";
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

    /**
     * Up to {@code limit} entries matching {@code filter}, newest first. Only the filters given are in the statement,
     * so that each form keeps a plan of its own on its index (on id, or on key_name and id).
     */
    public List<AuditEntry> page(Filter filter, int limit) {
        StringBuilder sql = new StringBuilder(SELECT);
        List<Object> values = new ArrayList<>();
        condition(sql, values, " and key_name = ?", filter.key());
        condition(sql, values, " and operation = ?", filter.operation());
        condition(sql, values, " and at >= ?", filter.from() == null ? null : Timestamp.from(filter.from()));
        condition(sql, values, " and at < ?", filter.to() == null ? null : Timestamp.from(filter.to()));
        condition(sql, values, " and id < ?", filter.before());
        sql.append(NEWEST_FIRST);
        values.add(limit);
        return reads.read(connection -> {
            try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
                for (int i = 0; i < values.size(); i++) {
                    select.setObject(i + 1, values.get(i));
                }
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

    private static void condition(StringBuilder sql, List<Object> values, String condition, Object value) {
        if (value != null) {
            sql.append(condition);
            values.add(value);
        }
    }

    private static AuditEntry entry(ResultSet row) throws SQLException {
        return new AuditEntry(row.getLong("id"), row.getTimestamp("at").toInstant(), row.getString("key_name"),
                row.getString("request_id"), row.getString("operation"), row.getString("method"),
                row.getString("path"), row.getInt("status"), row.getString("location"));
    }
}

package io.taskfence.audit;

import java.time.Instant;

/**
 * One change an admin key asked for, as answered: who ({@code key}), the request's id, what (the API operation, its
 * method and path, and the answer's Location, if any), the outcome ({@code status}) and when ({@code at}, when it was
 * recorded). {@code id} orders entries and pages a listing; it and {@code at} are the log's, null until recorded.
 */
public record AuditEntry(Long id, Instant at, String key, String requestId, String operation, String method,
        String path, int status, String location) {

    /** An entry to {@linkplain AuditLog#record record}. */
    public static AuditEntry of(String key, String requestId, String operation, String method, String path, int status,
            String location) {
        return new AuditEntry(null, null, key, requestId, operation, method, path, status, location);
    }
}

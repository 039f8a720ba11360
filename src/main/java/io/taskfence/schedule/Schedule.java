package io.taskfence.schedule;

import java.time.Instant;
import java.time.ZoneId;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A recurring schedule as stored: what it makes (a task of {@code type} with {@code payload},
 * {@code priority} and {@code maxAttempts}), when ({@code cron} in {@code cronType}'s dialect, in
 * {@code zone}), and where it stands: {@code nextFireAt} is the next occurrence not yet materialised
 * (null when the expression fires no more), {@code version} goes up with every write. {@code owner} is the name
 * of the API key that made it, whose tasks its occurrences are (null: none, with authentication off or from before
 * V16).
 */
public record Schedule(String name, String cron, CronType cronType, ZoneId zone, String type, ObjectNode payload,
        int priority, int maxAttempts, boolean paused, Misfire misfire, Instant nextFireAt, long version,
        Instant createdAt, Instant updatedAt, String owner) {

    /** The occurrences, as cron-utils steps through them. */
    public Cron times() {
        return Cron.of(cron, cronType, zone);
    }

    /** The idempotency key of the task an occurrence becomes: {@code schedule:<name>:<ISO-8601 instant>}. */
    public String keyOf(Instant occurrence) {
        return "schedule:" + name + ":" + occurrence;
    }
}

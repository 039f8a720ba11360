package io.taskfence.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.task.submit.NewTask;

/**
 * A recurring schedule as stored: what it makes (a task of {@code type} with {@code payload},
 * {@code priority} and {@code maxAttempts}), when ({@code cron} in {@code cronType}'s dialect, in
 * {@code zone}), and where it stands: {@code nextFireAt} is the next occurrence not yet materialised
 * (null when the expression fires no more), {@code version} goes up with every write. {@code owner} is the name
 * of the API key that made it, whose tasks its occurrences are (null: none, with authentication off or from before
 * V16). {@code dedupe} is the dedupe key and mode ({@code IGNORE} or {@code REPLACE}) its occurrences' tasks are
 * submitted with (null: none); {@code timeout} the time-out its tasks ask for their attempts (null: their type's; capped
 * at it as a submission's is).
 */
public record Schedule(String name, String cron, CronType cronType, ZoneId zone, String type, ObjectNode payload,
        int priority, int maxAttempts, boolean paused, Misfire misfire, Instant nextFireAt, long version,
        Instant createdAt, Instant updatedAt, String owner, NewTask.Dedupe dedupe, Duration timeout) {

    /** A schedule without a dedupe or a time-out of its own. */
    public Schedule(String name, String cron, CronType cronType, ZoneId zone, String type, ObjectNode payload,
            int priority, int maxAttempts, boolean paused, Misfire misfire, Instant nextFireAt, long version,
            Instant createdAt, Instant updatedAt, String owner) {
        this(name, cron, cronType, zone, type, payload, priority, maxAttempts, paused, misfire, nextFireAt, version,
                createdAt, updatedAt, owner, null, null);
    }

    /** This schedule, its tasks submitted with {@code dedupe} (null: none). */
    public Schedule deduplicatedBy(NewTask.Dedupe dedupe) {
        return new Schedule(name, cron, cronType, zone, type, payload, priority, maxAttempts, paused, misfire,
                nextFireAt, version, createdAt, updatedAt, owner, dedupe, timeout);
    }

    /** This schedule, its tasks asking for {@code timeout} (null: their type's). */
    public Schedule timingOutAfter(Duration timeout) {
        return new Schedule(name, cron, cronType, zone, type, payload, priority, maxAttempts, paused, misfire,
                nextFireAt, version, createdAt, updatedAt, owner, dedupe, timeout);
    }

    /** This schedule, its next occurrence {@code nextFireAt} (null: none). */
    public Schedule firingNextAt(Instant nextFireAt) {
        return new Schedule(name, cron, cronType, zone, type, payload, priority, maxAttempts, paused, misfire,
                nextFireAt, version, createdAt, updatedAt, owner, dedupe, timeout);
    }

    /** The occurrences, as cron-utils steps through them. */
    public Cron times() {
        return Cron.of(cron, cronType, zone);
    }

    /** The idempotency key of the task an occurrence becomes: {@code schedule:<name>:<ISO-8601 instant>}. */
    public String keyOf(Instant occurrence) {
        return "schedule:" + name + ":" + occurrence;
    }
}

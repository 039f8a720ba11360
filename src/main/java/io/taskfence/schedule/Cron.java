package io.taskfence.schedule;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

/**
 * A schedule's cron expression in its time zone, read and stepped through by cron-utils: the occurrences
 * are the instants at which the wall clock of {@code zone} matches the expression. Around a change of the
 * zone's offset cron-utils decides (DESIGN.md, "Decisions", tested in CronTest): a wall time that does not exist
 * (spring forward) does not fire that day; one that exists twice (fall back) fires once, at its first
 * instant, when the expression names the hour, and at both when the hour field is {@code *}.
 */
public final class Cron {

    private static final CronParser UNIX = new CronParser(definition(com.cronutils.model.CronType.UNIX));
    private static final CronParser QUARTZ = new CronParser(definition(com.cronutils.model.CronType.QUARTZ));

    private final ExecutionTime times;
    private final ZoneId zone;

    private Cron(ExecutionTime times, ZoneId zone) {
        this.times = times;
        this.zone = zone;
    }

    /**
     * @throws InvalidCronException if {@code expression} is not one of {@code type}'s, saying why
     */
    public static Cron of(String expression, CronType type, ZoneId zone) {
        com.cronutils.model.Cron parsed;
        try {
            parsed = (type == CronType.QUARTZ ? QUARTZ : UNIX).parse(expression).validate();
        } catch (IllegalArgumentException e) {
            throw new InvalidCronException("not a " + type.id() + " cron expression: " + e.getMessage());
        }
        return new Cron(ExecutionTime.forCron(parsed), zone);
    }

    /** The first occurrence strictly after {@code instant}; empty if there is none (a past year, 30 February). */
    public Optional<Instant> after(Instant instant) {
        // Occurrences are whole seconds; cron-utils keeps the fraction of the instant it is given.
        Instant second = instant.truncatedTo(ChronoUnit.SECONDS);
        return times.nextExecution(ZonedDateTime.ofInstant(second, zone))
                .map(next -> next.toInstant().truncatedTo(ChronoUnit.SECONDS)).filter(next -> next.isAfter(instant));
    }

    /** The last occurrence at or before {@code instant}; empty if there is none. */
    public Optional<Instant> atOrBefore(Instant instant) {
        Instant nextSecond = instant.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        return times.lastExecution(ZonedDateTime.ofInstant(nextSecond, zone))
                .map(last -> last.toInstant().truncatedTo(ChronoUnit.SECONDS)).filter(last -> !last.isAfter(instant));
    }

    /** Up to {@code count} occurrences strictly after {@code instant}, in order. */
    public List<Instant> after(Instant instant, int count) {
        List<Instant> next = new ArrayList<>(count);
        Instant from = instant;
        while (next.size() < count) {
            Optional<Instant> occurrence = after(from);
            if (occurrence.isEmpty()) {
                break;
            }
            next.add(occurrence.get());
            from = occurrence.get();
        }
        return next;
    }

    private static CronDefinition definition(com.cronutils.model.CronType type) {
        return CronDefinitionBuilder.instanceDefinitionFor(type);
    }
}

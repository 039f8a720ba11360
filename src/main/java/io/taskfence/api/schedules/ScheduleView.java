package io.taskfence.api.schedules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.schedule.Schedule;
import io.taskfence.task.TaskRows;

/** A schedule as the API shows it (DESIGN.md, "REST API", "Schedules"). */
@Schema(name = "Schedule", requiredProperties = { "name", "cron", "cronType", "zone", "type", "payload", "priority",
        "maxAttempts", "paused", "misfire", "nextFireAt", "nextFireTimes", "createdAt", "updatedAt", "owner",
        "dedupe", "timeout" })
public record ScheduleView(String name, String cron, String cronType, String zone, String type, ObjectNode payload,
        int priority, int maxAttempts, boolean paused, String misfire,
        @Schema(nullable = true, description = "the next occurrence no task was made for yet; null while paused or when it fires no more")
        Instant nextFireAt,
        @Schema(description = "the next " + NEXT_FIRE_TIMES + " occurrences from nextFireAt on; empty while paused")
        List<Instant> nextFireTimes,
        Instant createdAt, Instant updatedAt,
        @Schema(nullable = true, description = "the API key that made it, whose tasks its occurrences are (held to its quota); null "
                + "with authentication off")
        String owner,
        @Schema(nullable = true, description = "the dedupe its tasks are submitted with; null for none")
        ScheduleRequest.Dedupe dedupe,
        @Schema(nullable = true, description = "the timeout its tasks ask for (capped at the type's when each is made); "
                + "null for the type's", examples = "30s")
        String timeout) {

    static final int NEXT_FIRE_TIMES = 5;

    static ScheduleView of(Schedule schedule) {
        List<Instant> next = List.of();
        if (!schedule.paused() && schedule.nextFireAt() != null) {
            next = new ArrayList<>(NEXT_FIRE_TIMES);
            next.add(schedule.nextFireAt());
            next.addAll(schedule.times().after(schedule.nextFireAt(), NEXT_FIRE_TIMES - 1));
        }
        return new ScheduleView(schedule.name(), schedule.cron(), schedule.cronType().id(), schedule.zone().getId(),
                schedule.type(), schedule.payload(), schedule.priority(), schedule.maxAttempts(), schedule.paused(),
                schedule.misfire().id(), schedule.paused() ? null : schedule.nextFireAt(), List.copyOf(next),
                schedule.createdAt(), schedule.updatedAt(), schedule.owner(), schedule.dedupe() == null ? null
                        : new ScheduleRequest.Dedupe(schedule.dedupe().key(),
                                schedule.dedupe().mode().name().toLowerCase(Locale.ROOT)),
                schedule.timeout() == null ? null : TaskRows.durationText(schedule.timeout().toMillis()));
    }

    /** The answer of {@code GET /api/v1/schedules}: every schedule, by name. */
    @Schema(name = "ScheduleList", requiredProperties = "schedules")
    public record Listing(List<ScheduleView> schedules) {
    }
}

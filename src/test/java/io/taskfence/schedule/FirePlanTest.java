package io.taskfence.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Which occurrences become tasks, after a short delay and after an outage, under either misfire policy. */
class FirePlanTest {

    private static final Cron EVERY_MINUTE = Cron.of("* * * * *", CronType.UNIX, ZoneOffset.UTC);
    private static final Duration THRESHOLD = Duration.ofSeconds(60);
    private static final Instant T = Instant.parse("2026-01-01T10:00:00Z");

    @Test
    void nothingIsDueBeforeTheNextOccurrence() {
        FirePlan plan = FirePlan.of(EVERY_MINUTE, T, T.minusMillis(1), THRESHOLD, Misfire.SKIP, 1000);
        assertEquals(List.of(), plan.occurrences());
        assertEquals(Optional.of(T), plan.next());
    }

    @Test
    void anOccurrenceLateByNoMoreThanTheThresholdIsMadeUnderBothPolicies() {
        for (Misfire misfire : Misfire.values()) {
            FirePlan plan = FirePlan.of(EVERY_MINUTE, T, T.plusSeconds(60), THRESHOLD, misfire, 1000);
            assertEquals(List.of(T, T.plusSeconds(60)), plan.occurrences(), misfire + ": both are on time");
            assertEquals(Optional.of(T.plusSeconds(120)), plan.next());
        }
    }

    @Test
    void afterATenMinuteOutageSkipMakesOnlyTheOccurrencesWithinTheThreshold() {
        Instant now = T.plusSeconds(600).plusMillis(500);
        FirePlan plan = FirePlan.of(EVERY_MINUTE, T, now, THRESHOLD, Misfire.SKIP, 1000);
        assertEquals(List.of(T.plusSeconds(600)), plan.occurrences(), "10:00 to 10:09 were missed");
        assertEquals(Optional.of(T.plusSeconds(660)), plan.next());
    }

    @Test
    void afterATenMinuteOutageOnceMakesOneTaskForTheMissedOnesThenTheOnTimeOnes() {
        Instant now = T.plusSeconds(600).plusMillis(500);
        FirePlan plan = FirePlan.of(EVERY_MINUTE, T, now, THRESHOLD, Misfire.ONCE, 1000);
        assertEquals(List.of(T.plusSeconds(540), T.plusSeconds(600)), plan.occurrences(),
                "10:09 stands for 10:00 to 10:09; 10:10 is on time");
        assertEquals(Optional.of(T.plusSeconds(660)), plan.next());
    }

    @Test
    void whenEveryDueOccurrenceWasMissedSkipMakesNoneAndOnceOne() {
        Cron hourly = Cron.of("0 * * * *", CronType.UNIX, ZoneOffset.UTC);
        Instant now = T.plusSeconds(3 * 3600 + 1800);
        assertEquals(new FirePlan(List.of(), Optional.of(T.plusSeconds(4 * 3600))),
                FirePlan.of(hourly, T, now, THRESHOLD, Misfire.SKIP, 1000));
        assertEquals(new FirePlan(List.of(T.plusSeconds(3 * 3600)), Optional.of(T.plusSeconds(4 * 3600))),
                FirePlan.of(hourly, T, now, THRESHOLD, Misfire.ONCE, 1000));
    }

    @Test
    void atMostTheLimitIsMadeAndTheNextRunGoesOnFromTheFirstLeftOver() {
        Cron everySecond = Cron.of("* * * * * ?", CronType.QUARTZ, ZoneOffset.UTC);
        FirePlan plan = FirePlan.of(everySecond, T, T.plusSeconds(30), THRESHOLD, Misfire.SKIP, 10);
        assertEquals(10, plan.occurrences().size());
        assertEquals(T.plusSeconds(9), plan.occurrences().getLast());
        assertEquals(Optional.of(T.plusSeconds(10)), plan.next());
    }

    @Test
    void anExpressionThatFiresNoMoreLeavesNoNext() {
        Cron once = Cron.of("0 0 10 1 1 ? 2026", CronType.QUARTZ, ZoneOffset.UTC);
        FirePlan plan = FirePlan.of(once, T, T.plusSeconds(5), THRESHOLD, Misfire.SKIP, 1000);
        assertEquals(List.of(T), plan.occurrences());
        assertEquals(Optional.empty(), plan.next());
    }
}

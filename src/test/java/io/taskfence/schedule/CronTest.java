package io.taskfence.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The cron-utils adapter: both dialects, the zone's wall clock, its offset changes, and expressions refused. */
class CronTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    @Test
    void aUnixExpressionFiresOnTheMinutesItNamesStrictlyAfterTheInstantGiven() {
        Cron every15 = Cron.of("*/15 * * * *", CronType.UNIX, ZoneOffset.UTC);
        assertEquals(List.of(at("2026-01-01T10:15:00Z"), at("2026-01-01T10:30:00Z"), at("2026-01-01T10:45:00Z")),
                every15.after(at("2026-01-01T10:00:00Z"), 3));
        assertEquals(Optional.of(at("2026-01-01T10:15:00Z")), every15.after(at("2026-01-01T10:14:59.999Z")));
    }

    @Test
    void aQuartzExpressionHasSecondsSoItCanFireEverySecond() {
        Cron everySecond = Cron.of("* * * * * ?", CronType.QUARTZ, ZoneOffset.UTC);
        assertEquals(List.of(at("2026-01-01T10:00:01Z"), at("2026-01-01T10:00:02Z")),
                everySecond.after(at("2026-01-01T10:00:00Z"), 2));
        Cron withYear = Cron.of("0 0 12 ? * MON 2027", CronType.QUARTZ, ZoneOffset.UTC);
        assertEquals(Optional.of(at("2027-01-04T12:00:00Z")), withYear.after(at("2026-06-01T00:00:00Z")));
    }

    @Test
    void occurrencesAreWholeSecondsWhateverTheFractionOfTheInstantGiven() {
        Cron everySecond = Cron.of("* * * * * ?", CronType.QUARTZ, ZoneOffset.UTC);
        assertEquals(List.of(at("2026-01-01T10:00:01Z"), at("2026-01-01T10:00:02Z")),
                everySecond.after(at("2026-01-01T10:00:00.953429Z"), 2));
        assertEquals(Optional.of(at("2026-01-01T10:00:00Z")), everySecond.atOrBefore(at("2026-01-01T10:00:00.5Z")));
        assertEquals(Optional.of(at("2026-01-01T10:05:00Z")),
                Cron.of("*/5 * * * *", CronType.UNIX, ZoneOffset.UTC).atOrBefore(at("2026-01-01T10:09:59.999999Z")));
    }

    @Test
    void atOrBeforeIncludesTheInstantItself() {
        Cron everyMinute = Cron.of("* * * * *", CronType.UNIX, ZoneOffset.UTC);
        assertEquals(Optional.of(at("2026-01-01T10:05:00Z")), everyMinute.atOrBefore(at("2026-01-01T10:05:00Z")));
        assertEquals(Optional.of(at("2026-01-01T10:04:00Z")), everyMinute.atOrBefore(at("2026-01-01T10:04:59.999Z")));
    }

    @Test
    void theExpressionIsReadOnTheZonesWallClock() {
        Cron nineOClock = Cron.of("0 9 * * *", CronType.UNIX, BERLIN);
        assertEquals(Optional.of(at("2026-01-15T08:00:00Z")), nineOClock.after(at("2026-01-15T00:00:00Z")), "CET, +01:00");
        assertEquals(Optional.of(at("2026-07-15T07:00:00Z")), nineOClock.after(at("2026-07-15T00:00:00Z")), "CEST, +02:00");
    }

    @Test
    void aWallTimeTheSpringForwardSkipsDoesNotFireThatDay() {
        // 2026-03-29 in Berlin: 02:00 CET is followed by 03:00 CEST, so 02:30 does not exist.
        Cron halfPastTwo = Cron.of("30 2 * * *", CronType.UNIX, BERLIN);
        assertEquals(List.of(at("2026-03-28T01:30:00Z"), at("2026-03-30T00:30:00Z")),
                halfPastTwo.after(at("2026-03-27T12:00:00Z"), 2));
    }

    @Test
    void aWallTimeTheFallBackRepeatsFiresOnceWhenTheHourIsNamedAndTwiceUnderAnyHour() {
        // 2026-10-25 in Berlin: 03:00 CEST is followed by 02:00 CET, so 02:00 to 03:00 happens twice.
        Cron halfPastTwo = Cron.of("30 2 * * *", CronType.UNIX, BERLIN);
        assertEquals(List.of(at("2026-10-25T00:30:00Z"), at("2026-10-26T01:30:00Z")),
                halfPastTwo.after(at("2026-10-24T12:00:00Z"), 2), "02:30 CEST only");
        Cron everyHalfHour = Cron.of("*/30 * * * *", CronType.UNIX, BERLIN);
        assertEquals(List.of(at("2026-10-25T00:00:00Z"), at("2026-10-25T00:30:00Z"), at("2026-10-25T01:00:00Z"),
                at("2026-10-25T01:30:00Z"), at("2026-10-25T02:00:00Z")),
                everyHalfHour.after(at("2026-10-24T23:45:00Z"), 5), "02:00 and 02:30 in CEST, then in CET");
    }

    @Test
    void detectionGoesByTheNumberOfFields() {
        assertEquals(CronType.UNIX, CronType.detect("0 3 * * *"));
        assertEquals(CronType.QUARTZ, CronType.detect(" */5 * * * * ? "));
        assertEquals(CronType.QUARTZ, CronType.detect("0 0 12 ? * MON 2027"));
        assertEquals(CronType.UNIX, CronType.detect("* * *"));
    }

    @Test
    void expressionsNotOfTheirDialectAreRefusedSayingWhy() {
        assertRefused("61 * * * *", CronType.UNIX, "61");
        assertRefused("* * * *", CronType.UNIX, "4 parts");
        assertRefused("* * * * * ?", CronType.UNIX, "6 parts");
        assertRefused("0 3 * * *", CronType.QUARTZ, "");
        assertRefused("* * * * * *", CronType.QUARTZ, "day-of-week");
        assertRefused("every day", CronType.UNIX, "");
    }

    @Test
    void anExpressionThatCannotFireAgainHasNoNextOccurrence() {
        assertTrue(Cron.of("0 0 0 30 2 ?", CronType.QUARTZ, ZoneOffset.UTC).after(at("2026-01-01T00:00:00Z")).isEmpty(),
                "30 February");
        assertTrue(Cron.of("0 0 0 1 1 ? 2020", CronType.QUARTZ, ZoneOffset.UTC).after(at("2026-01-01T00:00:00Z")).isEmpty(),
                "a past year");
    }

    private static void assertRefused(String expression, CronType type, String saying) {
        InvalidCronException refused = assertThrows(InvalidCronException.class, () -> Cron.of(expression, type, ZoneOffset.UTC));
        assertTrue(refused.getMessage().startsWith("not a " + type.id() + " cron expression: ")
                && refused.getMessage().contains(saying), refused.getMessage());
    }

    private static Instant at(String instant) {
        return Instant.parse(instant);
    }
}

package io.taskfence.logging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/** Only Micrometer's warning about the Redis pools' gauges is dropped, not other duplicate meters. */
class RedisPoolGaugeWarningTest {

    private static final String MICROMETER = "io.micrometer.core.instrument.MeterRegistry";
    private static final String WARNING = "This Gauge has been already registered (MeterId{name='%s', "
            + "tags=[tag(pool.name=<default>),tag(pool.type=redis)]}), the registration will be ignored. Note that "
            + "subsequent logs will be logged at debug level.";

    private final RedisPoolGaugeWarning filter = new RedisPoolGaugeWarning();

    @Test
    void theRedisPoolGaugeWarningIsDropped() {
        assertFalse(filter.isLoggable(record(MICROMETER, WARNING.formatted("redis.pool.queue.size"))));
        assertFalse(filter.isLoggable(record(MICROMETER, WARNING.formatted("redis.pool.active"))));
    }

    @Test
    void otherDuplicateMetersAndOtherLoggersStillSpeak() {
        assertTrue(filter.isLoggable(record(MICROMETER, WARNING.formatted("taskfence.tasks"))));
        assertTrue(filter.isLoggable(record("io.taskfence.worker.Workers", WARNING.formatted("redis.pool.queue.size"))));
        assertTrue(filter.isLoggable(record(MICROMETER, "some other warning")));
    }

    private static ExtLogRecord record(String logger, String message) {
        ExtLogRecord record = new ExtLogRecord(Level.WARNING, message, ExtLogRecord.FormatStyle.NO_FORMAT,
                RedisPoolGaugeWarningTest.class.getName());
        record.setLoggerName(logger);
        return record;
    }
}

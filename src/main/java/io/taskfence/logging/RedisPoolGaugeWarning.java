package io.taskfence.logging;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

import org.jboss.logmanager.ExtLogRecord;

import io.quarkus.logging.LoggingFilter;

/**
 * Drops Micrometer's start-up warning that a Redis client's pool gauge "has been already registered".
 * Quarkus registers each client's pool gauges a second time when it adds the Prometheus registry
 * (quarkusio/quarkus#47504 reports the same for SQL pools); the gauges work, and a warning at every
 * start only teaches operators to ignore warnings. Any other duplicate meter is still reported.
 */
@LoggingFilter(name = RedisPoolGaugeWarning.NAME)
public final class RedisPoolGaugeWarning implements Filter {

    static final String NAME = "redis-pool-gauge-warning";

    @Override
    public boolean isLoggable(LogRecord record) {
        String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage();
        return !("io.micrometer.core.instrument.MeterRegistry".equals(record.getLoggerName()) && message != null
                && message.contains("has been already registered") && message.contains("name='redis.pool."));
    }
}

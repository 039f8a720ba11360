package io.taskfence.logging;

import java.util.HashMap;
import java.util.Map;

import org.jboss.logging.MDC;

/**
 * Puts entries in the calling thread's logging context (MDC) until closed, so that every line logged
 * meanwhile carries them; closing restores what those keys held before, so contexts nest.
 */
public final class LogContext implements AutoCloseable {

    private final Map<String, Object> previous = new HashMap<>();

    private LogContext(Map<String, String> entries) {
        entries.forEach((key, value) -> previous.put(key, MDC.put(key, value)));
    }

    public static LogContext with(Map<String, String> entries) {
        return new LogContext(entries);
    }

    @Override
    public void close() {
        previous.forEach((key, value) -> {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        });
    }
}

package io.taskfence.schedule;

import java.util.Locale;
import java.util.Optional;

/**
 * The two cron dialects a schedule may be written in: {@code unix} (5 fields, minute to day of week) and
 * {@code quartz} (6 or 7 fields: seconds first, an optional year last, {@code ?} in day of month or day of
 * week). Written in lower case in the API and the table.
 */
public enum CronType {
    UNIX, QUARTZ;

    /** The name the API and the table use. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<CronType> of(String id) {
        for (CronType type : values()) {
            if (type.id().equals(id)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    /** A schedule that names no dialect: 5 fields are Unix, 6 or 7 Quartz, other counts Unix (to be refused as such). */
    public static CronType detect(String expression) {
        int fields = expression.strip().split("\\s+").length;
        return fields == 6 || fields == 7 ? QUARTZ : UNIX;
    }
}

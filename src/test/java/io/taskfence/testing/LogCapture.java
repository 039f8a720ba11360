package io.taskfence.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.Logger;

/**
 * Keeps the lines logged under a category (and its children) while open, each with the logging context
 * (MDC) of the thread that logged it, copied at that moment.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    /** One captured line. */
    public record Line(String logger, String message, Map<String, String> mdc) {
    }

    private final String category;
    private final List<Line> lines = new CopyOnWriteArrayList<>();

    private LogCapture(String category) {
        this.category = category;
    }

    /** Starts capturing what the root logger's handlers see of {@code category}. */
    public static LogCapture of(String category) {
        LogCapture capture = new LogCapture(category);
        Logger.getLogger("").addHandler(capture);
        return capture;
    }

    public List<Line> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void publish(LogRecord record) {
        if (record instanceof ExtLogRecord ext && ext.getLoggerName() != null
                && (ext.getLoggerName().equals(category) || ext.getLoggerName().startsWith(category + "."))) {
            lines.add(new Line(ext.getLoggerName(), ext.getFormattedMessage(), ext.getMdcCopy()));
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}

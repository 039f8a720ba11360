package io.taskfence.api;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A delay as the API's bodies and queries write it: {@code <n>s} or {@code <n>ms}, e.g. {@code 30s}, {@code 500ms};
 * a span (a dedupe's period and maxWait) may also be {@code <n>m} or {@code <n>h}.
 */
public final class Delay {

    public static final String PATTERN = "([0-9]{1,9})(ms|s)";
    public static final String SPAN_PATTERN = "([0-9]{1,9})(ms|s|m|h)";
    private static final Pattern DELAY = Pattern.compile(PATTERN);
    private static final Pattern SPAN = Pattern.compile(SPAN_PATTERN);

    private Delay() {
    }

    /** The delay {@code text} names; empty if it names none. */
    public static Optional<Duration> parse(String text) {
        return parse(DELAY, text);
    }

    /** The span {@code text} names ({@link #SPAN_PATTERN}); empty if it names none. */
    public static Optional<Duration> parseSpan(String text) {
        return parse(SPAN, text);
    }

    private static Optional<Duration> parse(Pattern pattern, String text) {
        Matcher parts = pattern.matcher(text);
        if (!parts.matches()) {
            return Optional.empty();
        }
        long amount = Long.parseLong(parts.group(1));
        return Optional.of(switch (parts.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        });
    }
}

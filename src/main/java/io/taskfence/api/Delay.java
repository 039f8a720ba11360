package io.taskfence.api;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A delay as the API's bodies and queries write it: {@code <n>s} or {@code <n>ms}, e.g. {@code 30s}, {@code 500ms}. */
public final class Delay {

    public static final String PATTERN = "([0-9]{1,9})(ms|s)";
    private static final Pattern DELAY = Pattern.compile(PATTERN);

    private Delay() {
    }

    /** The delay {@code text} names; empty if it names none. */
    public static Optional<Duration> parse(String text) {
        Matcher parts = DELAY.matcher(text);
        if (!parts.matches()) {
            return Optional.empty();
        }
        long amount = Long.parseLong(parts.group(1));
        return Optional.of("ms".equals(parts.group(2)) ? Duration.ofMillis(amount) : Duration.ofSeconds(amount));
    }
}

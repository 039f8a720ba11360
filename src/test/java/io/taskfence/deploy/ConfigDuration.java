package io.taskfence.deploy;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a duration the way SmallRye Config does for a {@link Duration} setting: ISO-8601 ({@code PT20S}),
 * a number with a unit ({@code 500ms}, {@code 20s}, {@code 10m}, {@code 1h}, {@code 2d}) or a bare number
 * of seconds.
 */
final class ConfigDuration {

    private static final Pattern NUMBER_AND_UNIT = Pattern.compile("(\\d+)(ms|s|m|h|d)?");

    private ConfigDuration() {
    }

    static Duration parse(String text) {
        String value = text.trim();
        if (value.toUpperCase(Locale.ROOT).startsWith("P")) {
            return Duration.parse(value);
        }
        Matcher matcher = NUMBER_AND_UNIT.matcher(value);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a duration: " + text);
        }
        long amount = Long.parseLong(matcher.group(1));
        String unit = matcher.group(2) == null ? "s" : matcher.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> throw new IllegalArgumentException("not a duration: " + text);
        };
    }
}

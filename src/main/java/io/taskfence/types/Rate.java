package io.taskfence.types;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** At most {@code starts} tasks started in any {@code window} (a second or a minute): {@code 10/s}, {@code 600/m}. */
public record Rate(int starts, Duration window) {

    private static final Pattern FORMAT = Pattern.compile("([1-9][0-9]{0,8})/([sm])");

    /**
     * Reads {@code <n>/s} or {@code <n>/m}, n from 1.
     *
     * @throws IllegalArgumentException saying what the text should look like
     */
    public static Rate parse(String text) {
        Matcher matcher = FORMAT.matcher(text.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a rate: write <n>/s or <n>/m with n from 1, "
                    + "e.g. 10/s or 600/m");
        }
        return new Rate(Integer.parseInt(matcher.group(1)),
                matcher.group(2).equals("s") ? Duration.ofSeconds(1) : Duration.ofMinutes(1));
    }

    @Override
    public String toString() {
        return starts + (window.equals(Duration.ofSeconds(1)) ? "/s" : "/m");
    }
}

package io.taskfence.api;

import java.time.Duration;
import java.util.Optional;

/**
 * How long a request may wait for something to happen (a claim for a task, a read for a task's end): {@code <n>s} or
 * {@code <n>ms}, at most a minute, below the idle time-outs of common proxies and load balancers.
 */
public final class LongPoll {

    public static final Duration LONGEST = Duration.ofSeconds(60);
    public static final String PATTERN = "([0-9]{1,5})(ms|s)";
    public static final String RULE = "must be a number of seconds or milliseconds up to 60s, e.g. 20s or 500ms";

    private LongPoll() {
    }

    /** The wait {@code text} names; empty if it names none, or more than {@link #LONGEST}. */
    public static Optional<Duration> parse(String text) {
        return Delay.parse(text).filter(wait -> wait.compareTo(LONGEST) <= 0);
    }
}

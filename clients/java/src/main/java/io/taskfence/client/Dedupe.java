package io.taskfence.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A submission's dedupe key and mode (docs/DESIGN.md, "REST API", "Dedupe"): while the task the key made (for this API
 * key and type) has not started, a submission with the key makes no task and answers that one, after leaving it
 * ({@link #ignore}), giving it the new payload ({@link #replace}), or giving it the new payload and moving its start to
 * {@code period} from now, never past the first submission + {@code maxWait} ({@link #debounce}).
 */
public record Dedupe(String key, String mode, Duration period, Duration maxWait) {

    public static Dedupe ignore(String key) {
        return new Dedupe(key, "ignore", null, null);
    }

    public static Dedupe replace(String key) {
        return new Dedupe(key, "replace", null, null);
    }

    /** Runs the task {@code period} after the last submission with the key. */
    public static Dedupe debounce(String key, Duration period) {
        return new Dedupe(key, "debounce", period, null);
    }

    /** As {@link #debounce(String, Duration)}, but at the latest {@code maxWait} after the first submission. */
    public static Dedupe debounce(String key, Duration period, Duration maxWait) {
        return new Dedupe(key, "debounce", period, maxWait);
    }

    /** The request's {@code dedupe} member; spans in milliseconds, as the service reads them. */
    Map<String, String> json() {
        Map<String, String> json = new LinkedHashMap<>();
        json.put("key", key);
        json.put("mode", mode);
        if (period != null) {
            json.put("period", period.toMillis() + "ms");
        }
        if (maxWait != null) {
            json.put("maxWait", maxWait.toMillis() + "ms");
        }
        return json;
    }
}

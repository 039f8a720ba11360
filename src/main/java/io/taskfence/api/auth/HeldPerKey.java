package io.taskfence.api.auth;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.ApiSettings;
import io.taskfence.TaskfenceConfig;

/**
 * The per-key caps on requests that hold a replica's resources for long (DESIGN.md, "REST API", "Bulkheads"):
 * searches and counts (a connection of the reads pool and a core of PostgreSQL, up to {@code taskfence.api.read-timeout}
 * each) and long-polls (a waiter up to a minute). Counted on this replica only: each replica holds its own resources.
 * A request past its key's cap is refused 429 with {@code Retry-After} ({@link RequestRateExceeded}) before it holds
 * anything.
 */
@ApplicationScoped
public class HeldPerKey {

    /** What a request holds until it closes it; closing twice releases once. */
    public interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    private final Cap searches;
    private final Cap longPolls;
    private final Cap claimWaits;

    HeldPerKey(TaskfenceConfig config) {
        ApiSettings api = config.api();
        String timeout = api.readTimeout();
        int readSeconds = timeout.endsWith("ms") ? 1 + Integer.parseInt(timeout.substring(0, timeout.length() - 2)) / 1000
                : Integer.parseInt(timeout.substring(0, timeout.length() - 1));
        this.searches = new Cap(api.searchesPerKey(), "searches and counts", "taskfence.api.searches-per-key",
                readSeconds);
        this.longPolls = new Cap(api.longPollsPerKey(), "reads waiting for a task's end or progress (wait)",
                "taskfence.api.long-polls-per-key", 5);
        this.claimWaits = new Cap(api.claimWaitsPerKey(), "claims waiting for a task (wait)",
                "taskfence.api.claim-waits-per-key", 5);
    }

    /** A search (a listing with text or error) or a count of {@code key}'s. */
    public Hold search(String key) {
        return searches.take(key);
    }

    /** A long-poll of {@code key}'s: a read of a task waiting for its end. */
    public Hold longPoll(String key) {
        return longPolls.take(key);
    }

    /** A claim of {@code key}'s waiting for a task. */
    public Hold claimWait(String key) {
        return claimWaits.take(key);
    }

    private static final class Cap {

        private final int most;
        private final String what;
        private final String setting;
        private final int retryAfterSeconds;
        private final ConcurrentHashMap<String, Integer> held = new ConcurrentHashMap<>();

        Cap(int most, String what, String setting, int retryAfterSeconds) {
            this.most = most;
            this.what = what;
            this.setting = setting;
            this.retryAfterSeconds = retryAfterSeconds;
        }

        /** {@code name} null: authentication is off, and every caller shares one count. */
        Hold take(String name) {
            String key = name == null ? "" : name;
            boolean[] taken = { false };
            held.compute(key, (ignored, now) -> {
                int count = now == null ? 0 : now;
                taken[0] = count < most;
                return taken[0] ? count + 1 : now;
            });
            if (!taken[0]) {
                throw new RequestRateExceeded((name == null ? "Callers without a key have " : "API key '" + key
                        + "' has ") + most + " " + what + " under way on this "
                        + "replica, its cap (" + setting + "); this one was not started. Try again after Retry-After, "
                        + "once one of them has answered", retryAfterSeconds);
            }
            AtomicBoolean released = new AtomicBoolean();
            return () -> {
                if (released.compareAndSet(false, true)) {
                    // The key's entry goes once none is held: keys that stop asking leave nothing behind.
                    held.computeIfPresent(key, (ignored, now) -> now == 1 ? null : now - 1);
                }
            };
        }
    }
}

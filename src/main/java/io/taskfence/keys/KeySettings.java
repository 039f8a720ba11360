package io.taskfence.keys;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import io.taskfence.types.Rate;

/**
 * One API key's role and limits (DESIGN.md, "Configuration", "API keys"): what {@code taskfence.auth.keys.<name>}
 * holds for a configured key, what {@code api_keys} holds for one made through the API. A limit that is absent takes
 * the default of every key ({@code taskfence.auth.max-unfinished}, {@code taskfence.auth.rate}) or none.
 *
 * @param workerTypes a worker key's remote types ({@code *}: every one); empty for other roles
 * @param callbackSecret what the key's callbacks are signed with ({@code whsec_...}); for a configured key only when
 *        it names one (else one derived from its secret)
 * @param configured whether the configuration holds the key: then only a new start changes it
 */
public record KeySettings(String name, String role, Set<String> workerTypes, OptionalInt maxUnfinished, int weight,
        OptionalInt maxPriority, Optional<Rate> rate, Optional<List<String>> allowedHosts,
        Optional<String> callbackSecret, boolean configured) {

    /** What every key may ask of a task's priority when it names no max-priority. */
    public static final int HIGHEST_PRIORITY = 1000;

    public KeySettings {
        workerTypes = Set.copyOf(workerTypes);
        allowedHosts = allowedHosts.map(List::copyOf);
    }

    /** Limits that apply to keys which name none of their own. */
    public record Defaults(OptionalInt maxUnfinished, Optional<Rate> rate) {
    }

    /**
     * What these settings would grant beyond {@code caller}'s, each in a sentence; empty when they grant nothing more.
     * A limit the caller has, the key must have too, as low or lower: an admin limited to 100 unfinished tasks or
     * to hosts A and B cannot make (or change, or take over by a rotation) a key without those limits.
     */
    public List<String> beyond(KeySettings caller, Defaults defaults) {
        List<String> beyond = new ArrayList<>();
        OptionalInt callerQuota = or(caller.maxUnfinished, defaults.maxUnfinished());
        OptionalInt quota = or(maxUnfinished, defaults.maxUnfinished());
        if (callerQuota.isPresent() && (quota.isEmpty() || quota.getAsInt() > callerQuota.getAsInt())) {
            beyond.add("maxUnfinished must be at most " + callerQuota.getAsInt() + " (the calling key's), not "
                    + (quota.isPresent() ? quota.getAsInt() : "unlimited"));
        }
        Optional<Rate> callerRate = caller.rate.or(defaults::rate);
        Optional<Rate> ownRate = rate.or(defaults::rate);
        if (callerRate.isPresent() && (ownRate.isEmpty() || faster(ownRate.get(), callerRate.get()))) {
            beyond.add("rate must be at most " + callerRate.get() + " (the calling key's), not "
                    + ownRate.map(Rate::toString).orElse("unlimited"));
        }
        if (weight > caller.weight) {
            beyond.add("weight must be at most " + caller.weight + " (the calling key's), not " + weight);
        }
        int callerPriority = caller.maxPriority.orElse(HIGHEST_PRIORITY);
        if (maxPriority.orElse(HIGHEST_PRIORITY) > callerPriority) {
            beyond.add("maxPriority must be at most " + callerPriority + " (the calling key's), not "
                    + maxPriority.orElse(HIGHEST_PRIORITY));
        }
        caller.allowedHosts.ifPresent(callerHosts -> {
            List<String> more = allowedHosts.map(hosts -> hosts.stream().filter(host -> !callerHosts.contains(host))
                    .toList()).orElse(null);
            if (more == null) {
                beyond.add("allowedHosts must be some of the calling key's " + callerHosts + ", not all of the "
                        + "service's");
            } else if (!more.isEmpty()) {
                beyond.add("allowedHosts may name only the calling key's " + callerHosts + ", not " + more);
            }
        });
        return beyond;
    }

    private static OptionalInt or(OptionalInt own, OptionalInt otherwise) {
        return own.isPresent() ? own : otherwise;
    }

    /** Whether {@code a} lets more requests through in a minute than {@code b}. */
    private static boolean faster(Rate a, Rate b) {
        return (long) a.starts() * b.window().toMillis() > (long) b.starts() * a.window().toMillis();
    }
}

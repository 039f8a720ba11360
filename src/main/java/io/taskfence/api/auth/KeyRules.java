package io.taskfence.api.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.taskfence.TaskfenceConfig;
import io.taskfence.handlers.builtin.CallbackSecret;
import io.taskfence.types.Rate;

/**
 * What the configured API keys must be before the service starts (DESIGN.md, "Configuration", "API keys"). Every
 * message names the key, never its secret. The prod profile also refuses secrets that are short or look
 * like a placeholder, and running without authentication unless that is said twice.
 */
public final class KeyRules {

    /** Lower-case letters and digits only, so that the environment form TASKFENCE_AUTH_KEYS_<NAME>_SECRET is unambiguous. */
    public static final String NAME_PATTERN = "[a-z0-9]{1,32}";
    static final Pattern NAME = Pattern.compile(NAME_PATTERN);
    static final int MIN_PROD_SECRET = 32;
    static final int MAX_WEIGHT = 100;
    static final List<String> ROLES = List.of(Roles.SUBMIT, Roles.ADMIN, Roles.WORKER);
    /** Words that mark a value written to be replaced, as templates and examples write them. */
    private static final List<String> PLACEHOLDER_WORDS = List.of("change-me", "changeme", "change_me", "example",
            "placeholder", "secret", "password", "replace", "todo", "xxxx", "0123456789", "abcdef");

    private KeyRules() {
    }

    /** Why the keys cannot be used, {@code remoteTypes} being the types worker keys may name; empty when they can. */
    public static List<String> refusals(TaskfenceConfig.Auth auth, Set<String> remoteTypes, boolean prod) {
        // The limits are read with authentication off too (dispatch's weights, the rates): checked either way.
        List<String> refusals = new ArrayList<>(limitRefusals(auth));
        if (!auth.enabled()) {
            if (prod && !auth.allowDisabledInProd()) {
                refusals.add("taskfence.auth.enabled=false is refused in the prod profile: every caller could read and "
                        + "cancel every task; set taskfence.auth.allow-disabled-in-prod=true as well if that is really meant");
            }
            return refusals;
        }
        for (Map.Entry<String, TaskfenceConfig.Auth.Key> entry : auth.keys().entrySet()) {
            String name = entry.getKey();
            TaskfenceConfig.Auth.Key key = entry.getValue();
            if (!NAME.matcher(name).matches()) {
                refusals.add("API key name '" + name + "' must match " + NAME.pattern());
            }
            if (!ROLES.contains(key.role())) {
                refusals.add("API key '" + name + "': role must be one of " + ROLES + ", not '" + key.role() + "'");
            }
            workerTypeRefusals(name, key, remoteTypes, refusals);
            key.callbackSecret().flatMap(written -> CallbackSecret.whyNot(written, prod)).ifPresent(why -> refusals.add(
                    "API key '" + name + "': callback-secret " + why));
            String secret = key.secret().map(String::strip).orElse("");
            if (secret.isEmpty()) {
                refusals.add("API key '" + name + "' has no secret (taskfence.auth.keys." + name + ".secret)");
            } else if (prod) {
                if (secret.length() < MIN_PROD_SECRET) {
                    refusals.add("API key '" + name + "' is shorter than " + MIN_PROD_SECRET
                            + " characters, which the prod profile refuses; generate one, e.g. openssl rand -hex 32");
                } else if (looksLikePlaceholder(secret)) {
                    refusals.add("API key '" + name + "' looks like a placeholder, which the prod profile refuses;"
                            + " generate one, e.g. openssl rand -hex 32");
                }
            }
        }
        sharedCallbackSecrets(auth, refusals);
        return refusals;
    }

    /** Two keys with one callback secret: a receiver could not tell one's callbacks from the other's. */
    private static void sharedCallbackSecrets(TaskfenceConfig.Auth auth, List<String> refusals) {
        Map<String, String> byValue = new TreeMap<>();
        new TreeMap<>(auth.keys()).forEach((name, key) -> key.callbackSecret().map(String::strip).ifPresent(secret -> {
            String other = byValue.putIfAbsent(secret, name);
            if (other != null) {
                refusals.add("API keys '" + other + "' and '" + name + "' have the same callback-secret; each key needs "
                        + "its own, or its receivers could not tell the keys' callbacks apart");
            }
        }));
    }

    /**
     * A worker key names the remote types it may claim, at least one, each remote by the configuration, or {@code *}
     * alone: every remote type, also those an admin declares through the API. No other key names any.
     */
    private static void workerTypeRefusals(String name, TaskfenceConfig.Auth.Key key, Set<String> remoteTypes,
            List<String> refusals) {
        List<String> types = key.types().orElse(List.of());
        if (!Roles.WORKER.equals(key.role())) {
            if (!types.isEmpty()) {
                refusals.add("API key '" + name + "' names types, which only a worker key does (role=" + Roles.WORKER + ")");
            }
            return;
        }
        if (types.isEmpty()) {
            refusals.add("worker key '" + name + "' names no types (taskfence.auth.keys." + name
                    + ".types): it could claim nothing");
        }
        if (types.contains(KeyOwner.EVERY_REMOTE_TYPE)) {
            if (types.size() > 1) {
                refusals.add("worker key '" + name + "' names '" + KeyOwner.EVERY_REMOTE_TYPE + "' (every remote type) "
                        + "and more types: name either");
            }
            return;
        }
        for (String type : types) {
            if (!remoteTypes.contains(type)) {
                refusals.add("worker key '" + name + "' names '" + type + "', which is not a remote type (the remote "
                        + "types are " + new TreeSet<>(remoteTypes) + "; taskfence.types.<type>.remote=true)");
            }
        }
    }

    /** The keys' weights, priority caps and rates, and the default rate. */
    private static List<String> limitRefusals(TaskfenceConfig.Auth auth) {
        List<String> refusals = new ArrayList<>();
        auth.rate().ifPresent(rate -> readableRate("taskfence.auth.rate", rate, refusals));
        auth.keys().forEach((name, key) -> {
            if (key.weight() < 1 || key.weight() > MAX_WEIGHT) {
                refusals.add("API key '" + name + "': weight must be 1 to " + MAX_WEIGHT + ", not " + key.weight());
            }
            key.maxPriority().ifPresent(max -> {
                // Below 0 would refuse a task that names no priority (0).
                if (max < 0 || max > 1000) {
                    refusals.add("API key '" + name + "': max-priority must be 0 to 1000, not " + max);
                }
            });
            key.rate().ifPresent(rate -> readableRate("API key '" + name + "': rate", rate, refusals));
        });
        return refusals;
    }

    private static void readableRate(String what, String rate, List<String> refusals) {
        try {
            Rate.parse(rate);
        } catch (IllegalArgumentException unreadable) {
            refusals.add(what + ": " + unreadable.getMessage());
        }
    }

    static boolean looksLikePlaceholder(String secret) {
        String lower = secret.toLowerCase(Locale.ROOT);
        return PLACEHOLDER_WORDS.stream().anyMatch(lower::contains) || lower.chars().distinct().count() <= 4;
    }
}

package io.taskfence.keys;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import io.taskfence.TaskfenceConfig;
import io.taskfence.signals.SignalChannel;
import io.taskfence.types.Rate;

/**
 * Every API key this replica knows, by name and by secret: the configured ones, and a copy of {@code api_keys}
 * ({@link StoredKeys}), read at start, again when a replica announces a change on {@code <prefix>:keys}, every
 * {@value #REREAD_SECONDS} seconds, and when a request brings a secret the copy does not hold. The table decides:
 * an announcement only makes a replica read it sooner, so a key works everywhere once made (a miss reads the
 * table), and a revoked one stops working within a second on the replicas that hear of it, within
 * {@value #REREAD_SECONDS} seconds on those that do not (Redis down). Reads run one at a time on one thread, so a
 * later read always replaces an earlier one.
 * <p>
 * Every per-key setting (quota, rate, weight, max-priority, allowed hosts, callback secret) is read here: of a
 * revoked key too ({@link #limitsOf}), whose tasks already stored still run under its limits.
 */
@ApplicationScoped
@Startup
public class KeyDirectory {

    private static final Logger LOG = Logger.getLogger(KeyDirectory.class);
    static final int REREAD_SECONDS = 10;
    /** Reads for secrets not in the copy start at least this far apart: a flood of made-up secrets reads little. */
    private static final long MISS_READS_APART_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Secrets known to be no key's, at most; past it the set starts again (each is then read once more). */
    private static final int MAX_UNKNOWN = 10_000;
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The table's keys and secrets as last read; replaced whole. */
    private record Copy(Map<String, KeySettings> live, Map<String, KeySettings> revoked,
            Map<String, StoredKeys.StoredSecret> byDigest, Map<String, Integer> weights) {
    }

    private final Map<String, KeySettings> configured;
    private final KeySettings.Defaults defaults;
    private final StoredKeys table;
    private final SignalChannel changes;
    private final ScheduledExecutorService rereads =
            new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().name("key-directory").daemon().factory());
    private volatile Copy copy;
    /**
     * Digests that a read started after they came did not find. Secrets are made here from 32 random bytes, so a digest
     * no key had then is none's later either: it is refused without another read.
     */
    private final Set<String> unknown = ConcurrentHashMap.newKeySet();
    /** Stored keys a configured one of the same name hides, each warned about once. */
    private final Set<String> shadowed = ConcurrentHashMap.newKeySet();
    /** The read that requests which missed wait for; null when none is due. Guarded by this. */
    private CompletableFuture<Void> nextRead;
    /** When the last read for a miss was scheduled to start ({@link System#nanoTime}). Guarded by this. */
    private long lastMissRead = System.nanoTime() - MISS_READS_APART_NANOS;
    private long lastWarned = System.nanoTime() - WARN_EVERY_NANOS;

    @Inject
    KeyDirectory(TaskfenceConfig config, StoredKeys table, RedisDataSource redis) {
        this.configured = configured(config.auth());
        this.defaults = new KeySettings.Defaults(config.auth().maxUnfinished(), rate(config.auth().rate()));
        this.table = table;
        this.changes = new SignalChannel(redis, config.keyPrefix() + ":keys");
        this.copy = copyOf(new StoredKeys.Contents(List.of(), List.of(), List.of()));
    }

    void start(@Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent started) {
        readNow(); // before the first request: the table's keys work from the start
        // A message arrives on an event loop, which must not wait for PostgreSQL.
        changes.listen(name -> rereads.execute(this::reread), () -> rereads.execute(this::reread), rereads);
        rereads.scheduleWithFixedDelay(this::reread, REREAD_SECONDS, REREAD_SECONDS, TimeUnit.SECONDS);
    }

    void stop(@Observes ShutdownEvent stopped) {
        changes.close();
        rereads.shutdownNow();
    }

    /** The key {@code name} as it authenticates and is listed: configured, or stored and not revoked. */
    public Optional<KeySettings> named(String name) {
        if (name == null) {
            return Optional.empty();
        }
        KeySettings key = configured.get(name);
        return key != null ? Optional.of(key) : Optional.ofNullable(copy.live().get(name));
    }

    /**
     * The limits of the tasks {@code owner} owns: its key's, also when it was revoked (its tasks already stored run
     * under them); empty for an owner with no key, configured or stored.
     */
    public Optional<KeySettings> limitsOf(String owner) {
        return named(owner).or(() -> owner == null ? Optional.empty() : Optional.ofNullable(copy.revoked().get(owner)));
    }

    /** Every key, configured or stored and not revoked, by name. */
    public List<KeySettings> all() {
        List<KeySettings> all = new ArrayList<>(configured.values());
        all.addAll(copy.live().values());
        all.sort(Comparator.comparing(KeySettings::name));
        return all;
    }

    /** The owners whose dispatch share is not 1, with their weights; every other owner has 1. */
    public Map<String, Integer> weights() {
        return copy.weights();
    }

    /** The limits of keys that name none of their own. */
    public KeySettings.Defaults defaults() {
        return defaults;
    }

    /**
     * The stored key whose secret has the SHA-256 digest {@code digest}, if that secret works now. A digest neither
     * the copy nor the unknown ones hold waits for a read of the table that starts after it came (one read at a time,
     * shared by every request waiting, {@value #MISS_READS_APART_NANOS} ns apart at least), so a key made through
     * another replica works at once here too; configured keys are not looked up here ({@code ApiKeys} compares them
     * without a lookup's timing).
     */
    public CompletableFuture<Optional<KeySettings>> storedBySecret(byte[] digest) {
        String hex = HexFormat.of().formatHex(digest);
        Optional<KeySettings> known = lookUp(hex);
        if (known.isPresent() || copy.byDigest().containsKey(hex) || unknown.contains(hex)) {
            return CompletableFuture.completedFuture(known); // known, maybe expired: no read would change that
        }
        return readSoon().thenApply(read -> {
            Optional<KeySettings> found = lookUp(hex);
            if (found.isEmpty() && !copy.byDigest().containsKey(hex)) {
                if (unknown.size() >= MAX_UNKNOWN) {
                    unknown.clear();
                }
                unknown.add(hex);
            }
            return found;
        });
    }

    /**
     * Reads the table again, and returns once read, and tells the other replicas to: a key was made, changed, rotated
     * or revoked.
     */
    public void changed(String name) {
        readNow();
        changes.publish(name);
    }

    private Optional<KeySettings> lookUp(String hex) {
        Copy now = copy;
        StoredKeys.StoredSecret secret = now.byDigest().get(hex);
        if (secret == null || secret.expiresAt() != null && !Instant.now().isBefore(secret.expiresAt())) {
            return Optional.empty();
        }
        return Optional.ofNullable(now.live().get(secret.name()));
    }

    private synchronized CompletableFuture<Void> readSoon() {
        if (nextRead == null) {
            nextRead = new CompletableFuture<>();
            long now = System.nanoTime();
            long delay = Math.max(0, lastMissRead + MISS_READS_APART_NANOS - now);
            lastMissRead = now + delay;
            rereads.schedule(this::readForThoseWaiting, delay, TimeUnit.NANOSECONDS);
        }
        return nextRead;
    }

    private void readForThoseWaiting() {
        CompletableFuture<Void> waiting;
        synchronized (this) {
            waiting = nextRead;
            nextRead = null;
        }
        reread();
        waiting.complete(null);
    }

    /** A read on the directory's thread, waited for: reads stay one at a time, in order. */
    private void readNow() {
        try {
            rereads.submit(this::reread).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RejectedExecutionException e) {
            LOG.debugf("the stored API keys were not read: %s", e.getMessage());
        }
    }

    /** Reads the table again; keeps the copy it has when PostgreSQL (or the table, before V31) is not there. */
    private void reread() {
        try {
            copy = copyOf(table.read());
        } catch (RuntimeException e) { // also on the timer's thread, whose schedule one exception would end
            long now = System.nanoTime();
            if (now - lastWarned >= WARN_EVERY_NANOS) {
                lastWarned = now;
                LOG.warnf("the stored API keys could not be read (the copy of the last read is used): %s",
                        e.getMessage());
            }
        }
    }

    private Copy copyOf(StoredKeys.Contents read) {
        Map<String, KeySettings> live = new HashMap<>();
        read.live().forEach(key -> {
            if (configured.containsKey(key.name())) {
                if (shadowed.add(key.name())) {
                    LOG.warnf("API key '%s' is configured and also stored (made through the API): the configured one is "
                            + "used, the stored one is not", key.name());
                }
            } else {
                live.put(key.name(), key);
            }
        });
        Map<String, KeySettings> revoked = new HashMap<>();
        read.revoked().forEach(key -> revoked.put(key.name(), key));
        Map<String, StoredKeys.StoredSecret> byDigest = new HashMap<>();
        read.secrets().forEach(secret -> byDigest.put(HexFormat.of().formatHex(secret.digest()), secret));
        Map<String, Integer> weights = new TreeMap<>();
        revoked.values().forEach(key -> weigh(key, weights));
        live.values().forEach(key -> weigh(key, weights));
        configured.values().forEach(key -> weigh(key, weights));
        return new Copy(Map.copyOf(live), Map.copyOf(revoked), Map.copyOf(byDigest), Collections.unmodifiableMap(weights));
    }

    private static void weigh(KeySettings key, Map<String, Integer> weights) {
        if (key.weight() != 1) {
            weights.put(key.name(), key.weight());
        }
    }

    private static Map<String, KeySettings> configured(TaskfenceConfig.Auth auth) {
        Map<String, KeySettings> keys = new TreeMap<>();
        auth.keys().forEach((name, key) -> keys.put(name, new KeySettings(name, key.role(),
                Set.copyOf(key.types().orElse(List.of())), key.maxUnfinished(), key.weight(), key.maxPriority(),
                rate(key.rate()), key.allowedHosts(), key.callbackSecret().map(String::strip), true)));
        return Map.copyOf(keys);
    }

    /** A configured rate; one that cannot be read is left out here, and stops the start (KeyRules) before use. */
    private static Optional<Rate> rate(Optional<String> text) {
        try {
            return text.map(Rate::parse);
        } catch (IllegalArgumentException unreadable) {
            return Optional.empty();
        }
    }
}

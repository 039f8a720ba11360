package io.taskfence.remote;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.sortedset.ScoreRange;
import io.quarkus.redis.datasource.sortedset.SortedSetCommands;
import io.quarkus.redis.datasource.sortedset.ZRangeArgs;
import io.taskfence.lock.LockSettings;

/**
 * The remote workers seen lately (DESIGN.md, "Remote workers", "Workers seen"): what the worker API learns of each
 * (its key, its name, the types it asked for, when it last claimed a task, heartbeat and called), kept in Redis for
 * {@value #KEPT_MINUTES} minutes after its last call, shared by every replica. A worker is its key and the name it
 * gives itself ({@code worker} in a claim request), as its claims' ids carry them.
 * <p>
 * {@code <prefix>:workers} is a sorted set of {@code <key>:<name>} by when each was last seen; {@code
 * <prefix>:worker:<key>:<name>} a hash of the rest, which expires {@value #KEPT_MINUTES} minutes after its last write.
 * A replica writes a worker's sighting of one kind at most once a second; the writes never wait nor fail a request:
 * this is a view for operators, and a lost write shows a worker a little older.
 */
@ApplicationScoped
public class WorkerSightings {

    private static final Logger LOG = Logger.getLogger(WorkerSightings.class);
    static final int KEPT_MINUTES = 60;
    /** The most workers a listing shows, the most recently seen first. */
    public static final int MAX_LISTED = 1_000;
    private static final long WRITE_EVERY_NANOS = Duration.ofSeconds(1).toNanos();
    /** The workers kept, at most: those seen last. */
    static final int MAX_KEPT = 10_000;
    private static final long TRIM_EVERY_NANOS = Duration.ofMinutes(1).toNanos();
    /** A key's name and a worker's name as a claim request gives it ({@code ClaimRequest.WORKER}). */
    private static final Pattern WORKER = Pattern.compile("[a-z0-9]{1,32}:[A-Za-z0-9._-]{1,64}");
    /** Workers whose last writes a replica remembers for its throttle, at most. */
    private static final int MAX_REMEMBERED = 10_000;

    /** A worker as last seen; a time is null when it never did that. */
    public record Sighting(String key, String name, Set<String> types, Instant lastSeenAt, Instant lastClaimAt,
            Instant lastHeartbeatAt) {
    }

    private enum Kind {
        SEEN("seenAt"), CLAIM("claimedAt"), HEARTBEAT("heartbeatAt");

        private final String field;

        Kind(String field) {
            this.field = field;
        }
    }

    private final RedisDataSource redis;
    private final ReactiveRedisDataSource writes;
    private final String seen;
    private final String prefix;
    /** When this replica last wrote each worker's sighting of each kind ({@link System#nanoTime}). */
    private final ConcurrentHashMap<String, Long> written = new ConcurrentHashMap<>();
    private final AtomicLong lastTrim = new AtomicLong(System.nanoTime() - TRIM_EVERY_NANOS);

    WorkerSightings(RedisDataSource redis, LockSettings settings) {
        this.redis = redis;
        this.writes = redis.getReactive();
        this.seen = settings.keyPrefix() + ":workers";
        this.prefix = settings.keyPrefix() + ":worker:";
    }

    /** A claim request of {@code claimer} ({@link RemoteClaims#claimer}) for {@code types}, which got {@code got} tasks. */
    public void claimed(String claimer, List<String> types, int got) {
        worker(claimer).ifPresent(worker -> record(worker, got > 0 ? Kind.CLAIM : Kind.SEEN,
                String.join(",", new TreeSet<>(types))));
    }

    /** A call on {@code claim} that it answered: a heartbeat, or another (progress, complete, fail, release). */
    public void called(ClaimId claim, boolean heartbeat) {
        worker(claim.worker()).ifPresent(worker -> record(worker, heartbeat ? Kind.HEARTBEAT : Kind.SEEN, null));
    }

    /**
     * The workers seen in the last {@value #KEPT_MINUTES} minutes, the most recently seen first, at most
     * {@value #MAX_LISTED}; those seen before are forgotten on the way. Blocks.
     */
    public List<Sighting> recent() {
        double since = Instant.now().minus(Duration.ofMinutes(KEPT_MINUTES)).toEpochMilli();
        SortedSetCommands<String, String> sorted = redis.sortedSet(String.class);
        sorted.zremrangebyscore(seen, new ScoreRange<>(Double.NEGATIVE_INFINITY, true, since, false));
        List<String> workers = sorted.zrange(seen, 0, MAX_LISTED - 1, new ZRangeArgs().rev());
        List<Sighting> sightings = new ArrayList<>();
        for (String worker : workers) {
            Map<String, String> hash = redis.hash(String.class).hgetall(prefix + worker);
            String[] keyAndName = worker.split(":", 2);
            if (keyAndName.length != 2 || !hash.containsKey(Kind.SEEN.field)) {
                continue; // its hash expired meanwhile
            }
            String types = hash.get("types");
            sightings.add(new Sighting(keyAndName[0], keyAndName[1],
                    types == null || types.isEmpty() ? Set.of() : new TreeSet<>(Arrays.asList(types.split(","))),
                    instant(hash, Kind.SEEN.field), instant(hash, Kind.CLAIM.field), instant(hash, Kind.HEARTBEAT.field)));
        }
        return sightings;
    }

    private void record(String worker, Kind kind, String types) {
        long now = System.nanoTime();
        trim(now);
        String which = worker + "/" + kind;
        Long last = written.get(which);
        if (last != null && now - last < WRITE_EVERY_NANOS) {
            return;
        }
        if (written.size() > MAX_REMEMBERED) {
            written.clear(); // many names (a worker may choose any): only the throttle's memory is lost
        }
        written.put(which, now);
        String at = Long.toString(Instant.now().toEpochMilli());
        Map<String, String> fields = new HashMap<>();
        fields.put(Kind.SEEN.field, at);
        fields.put(kind.field, at);
        if (types != null) {
            fields.put("types", types);
        }
        String hash = prefix + worker;
        // Three commands on three keys, not a batch: under Redis Cluster the keys may live on different nodes.
        writes.hash(String.class).hset(hash, fields)
                .chain(() -> writes.key().pexpire(hash, Duration.ofMinutes(KEPT_MINUTES)))
                .chain(() -> writes.sortedSet(String.class).zadd(seen, Double.parseDouble(at), worker))
                .subscribe().with(done -> { },
                        failure -> LOG.debugf("a sighting of worker %s was not recorded: %s", worker, failure));
    }

    /**
     * Forgets the workers not seen for {@value #KEPT_MINUTES} minutes, and all but the {@value #MAX_KEPT} seen last,
     * once a minute per replica: without it, names that change at every worker's start would pile up in Redis.
     */
    private void trim(long now) {
        long last = lastTrim.get();
        if (now - last < TRIM_EVERY_NANOS || !lastTrim.compareAndSet(last, now)) {
            return;
        }
        double since = Instant.now().minus(Duration.ofMinutes(KEPT_MINUTES)).toEpochMilli();
        writes.sortedSet(String.class).zremrangebyscore(seen, new ScoreRange<>(Double.NEGATIVE_INFINITY, true, since, false))
                .chain(() -> writes.sortedSet(String.class).zremrangebyrank(seen, 0, -MAX_KEPT - 1))
                .subscribe().with(done -> { }, failure -> LOG.debugf("the workers seen were not trimmed: %s", failure));
    }

    /**
     * {@code <key>:<name>} of a claimer {@code remote:<key>:<name>[/<uuid>]}; empty for one of this service's own, or
     * one whose name is not one a claim request may give (a claim id is the client's text until the table checks it).
     */
    private static Optional<String> worker(String claimer) {
        if (!claimer.startsWith("remote:")) {
            return Optional.empty();
        }
        String worker = claimer.substring("remote:".length());
        int slash = worker.indexOf('/');
        String keyAndName = slash < 0 ? worker : worker.substring(0, slash);
        return WORKER.matcher(keyAndName).matches() ? Optional.of(keyAndName) : Optional.empty();
    }

    private static Instant instant(Map<String, String> hash, String field) {
        String text = hash.get(field);
        return text == null ? null : Instant.ofEpochMilli(Long.parseLong(text));
    }
}

package io.taskfence.bench.peers;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.config.Config;

/**
 * The Redisson client of the lock peer and the key space it may write to: keys under a prefix
 * {@code taskfence-bench-<random>} no other run or test shares, all deleted again on {@link #close()}.
 */
final class BenchRedis implements AutoCloseable {

    static final String ADDRESS = "redis://127.0.0.1:6379";

    /**
     * Redisson's own lock-side keys: each {@code unlock()} also sets {@code redisson_unlock_latch:{<lock>}:<id>}
     * (so that a retried unlock answers alike) and deletes it in the background afterwards. They expire by
     * themselves, but a run stopped mid-way could leave some, and they hold our prefix only inside the braces.
     */
    private static final String UNLOCK_LATCHES = "redisson_unlock_latch:{";

    private final String keyPrefix;
    private final RedissonClient client;

    private BenchRedis(String keyPrefix, RedissonClient client) {
        this.keyPrefix = keyPrefix;
        this.client = client;
    }

    /**
     * One client, one connection pool, shared by all lock threads, as a service shares its client. Pool sizes:
     * connectionPoolSize 64 so that 64 threads each doing one blocking call at a time never wait for a connection
     * because of configuration alone (Redisson also multiplexes, so this is a ceiling, not a requirement);
     * connectionMinimumIdleSize 64 so that all of them are open from the start and no counted second pays for
     * a connect. The subscription pool stays at its default: {@code tryLock} with zero wait never subscribes.
     * Threads (netty and Redisson's own) and time-outs stay at Redisson's defaults; the codec is the default too,
     * and a lock's hash field never goes through it.
     */
    static BenchRedis connect() {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(ADDRESS)
                .setConnectionPoolSize(64)
                .setConnectionMinimumIdleSize(64);
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        return new BenchRedis("taskfence-bench-" + HexFormat.of().formatHex(random), Redisson.create(config));
    }

    String keyPrefix() {
        return keyPrefix;
    }

    RedissonClient client() {
        return client;
    }

    /** Deletes every key of this run, checks none is left, then shuts the client down. */
    @Override
    public void close() {
        try {
            List<String> patterns = List.of(keyPrefix + "*", UNLOCK_LATCHES + keyPrefix + "*");
            for (String pattern : patterns) {
                client.getKeys().deleteByPattern(pattern);
            }
            for (String pattern : patterns) {
                long left = client.getKeys().getKeysStream(KeysScanOptions.defaults().pattern(pattern)).count();
                if (left > 0) {
                    throw new IllegalStateException(left + " Redis key(s) matching " + pattern + " remain after delete");
                }
            }
        } finally {
            client.shutdown();
        }
    }
}

package io.taskfence.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.taskfence.testing.TestServers;

/**
 * Holders in separate OS processes (redis-cli running the service's scripts) and in this JVM's threads
 * contend for one lock; Redis itself logs every entry and exit, and the log must show one holder at a
 * time, with tokens rising in the order they entered.
 */
@QuarkusTest
@TestServers
class CrossProcessMutualExclusionTest {

    private static final int PROCESSES = 3;
    private static final int ROUNDS_PER_PROCESS = 60;
    private static final int THREADS = 4;
    private static final int ROUNDS_PER_THREAD = 150;

    @Inject
    FencedLocks locks;
    @Inject
    LockSettings settings;
    @Inject
    RedisDataSource redis;
    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    @Test
    void holdersInOtherProcessesAndInThreadsNeverOverlap() throws Exception {
        String name = "processes-" + UUID.randomUUID();
        LockKeys keys = LockKeys.of(settings.keyPrefix(), name);
        String log = settings.keyPrefix() + ":mutex-log:{" + name + "}";
        Path scripts = Path.of(getClass().getClassLoader().getResource("lock/acquire.lua").toURI()).getParent();
        Path contender = Path.of(getClass().getClassLoader().getResource("lock-contender.sh").toURI());
        URI redisUri = URI.create(redisUrl);

        List<Process> processes = new ArrayList<>();
        for (int p = 0; p < PROCESSES; p++) {
            processes.add(new ProcessBuilder("bash", contender.toString(), redisUri.getHost(),
                    Integer.toString(redisUri.getPort()), scripts.toString(), keys.lock(), keys.fence(),
                    keys.releaseChannel(), name, log, "process-" + p, Integer.toString(ROUNDS_PER_PROCESS))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.INHERIT).start());
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                threads.add(pool.submit(() -> {
                    for (int i = 0; i < ROUNDS_PER_THREAD; i++) {
                        FencedLease lease = locks.tryAcquire(name, Duration.ofSeconds(30), Duration.ofSeconds(60))
                                .orElseThrow(() -> new AssertionError("wait ran out"));
                        String holder = lease.owner() + ":" + lease.token();
                        redis.list(String.class).rpush(log, "in " + holder);
                        redis.list(String.class).rpush(log, "out " + holder);
                        assertTrue(lease.release());
                    }
                    return null;
                }));
            }
            for (Future<?> thread : threads) {
                thread.get();
            }
            for (Process process : processes) {
                assertTrue(process.waitFor(120, TimeUnit.SECONDS), "a contender process did not finish");
                assertEquals(0, process.exitValue(), "a contender process failed");
            }
        } finally {
            pool.shutdownNow();
            processes.forEach(Process::destroyForcibly);
        }

        List<String> entries = redis.list(String.class).lrange(log, 0, -1);
        assertEquals(2 * (PROCESSES * ROUNDS_PER_PROCESS + THREADS * ROUNDS_PER_THREAD), entries.size());
        long previousToken = 0;
        for (int i = 0; i < entries.size(); i += 2) {
            String in = entries.get(i);
            String out = entries.get(i + 1);
            assertTrue(in.startsWith("in "), "expected an entry at " + i + ": " + in);
            assertEquals("out " + in.substring(3), out, "someone entered before " + in + " left");
            long token = Long.parseLong(in.substring(in.lastIndexOf(':') + 1));
            assertTrue(token > previousToken, "token " + token + " entered after " + previousToken);
            previousToken = token;
        }
    }
}

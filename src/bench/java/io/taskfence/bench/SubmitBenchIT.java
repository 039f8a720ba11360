package io.taskfence.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.PostgresSchema;
import io.taskfence.testing.RedisKeySpace;

/**
 * REST submission on one packaged replica, loaded by wrk (2 threads, 32 connections): one noop task a request
 * ({@code submit.single}), a request that does no work on the same replica as the ceiling of its HTTP stack
 * ({@code submit.trivial}), and 1,000 noop tasks a request to {@code POST /api/v1/tasks/batch}, in tasks a second
 * ({@code submit.bulk}). Workers and
 * dispatch are off, so that only the API and its INSERT are measured, not the tasks running beside them.
 *
 * <p>Single submissions first load the replica from its first request, as a deploy's first minute would: wrk in
 * back-to-back windows of 5 s ({@code bench.submit-windows}, {@code submit.single.window.K}), which also warm it up
 * for the steady {@code submit.single} measured after them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SubmitBenchIT {

    private static final String ADMIN_KEY = "tf-bench-6a1d8f3c0e5b27a9d4c6e1f08b3a5d72";
    private static final String AUTHORIZATION = "Authorization: Bearer " + ADMIN_KEY;
    /** Read by wrk from the project directory, where failsafe runs. */
    private static final Path SUBMIT_SCRIPT = Path.of("src", "bench", "resources", "wrk", "submit-noop.lua");
    /**
     * The trivial request: a path nothing serves, answered 404 by Quarkus REST. It crosses the same Vert.x and
     * Quarkus REST stack a submission does (routing, the response filter, an exception mapper, Jackson writing
     * a small problem body) and nothing else: no authentication, validation or database. {@code /q/health/live}
     * would be no honest "nothing": its check pings every event loop and waits for them on a worker thread,
     * and on this project's 2-core machine it answered about half as many requests a second as this path.
     */
    private static final String TRIVIAL_PATH = "/api/v1/nothing-here";
    private static final String BULK_PATH = "/api/v1/tasks/batch";
    /** 1,000 noop tasks a request, the most a batch may hold; {@code submit.bulk} is in tasks a second. */
    private static final Path BULK_SCRIPT = Path.of("src", "bench", "resources", "wrk", "submit-bulk-noop.lua");
    private static final long BULK_TASKS = 1000;
    /** The curve's resolution: short enough to show the first seconds, long enough for wrk's figure to hold. */
    private static final Duration WINDOW = Duration.ofSeconds(5);

    private static final PostgresSchema SCHEMA = new PostgresSchema();
    private static final RedisKeySpace KEYS = new RedisKeySpace();
    private static PackagedService replica;
    private static String databaseUrl;

    @BeforeAll
    static void startOneReplica() throws Exception {
        // The key prefix first: it is only a name until something writes under it, so stopIt() can always clean up.
        Map<String, String> settings = new HashMap<>(KEYS.start());
        settings.putAll(SCHEMA.start());
        databaseUrl = settings.get("quarkus.datasource.jdbc.url");
        Map<String, String> env = new HashMap<>();
        settings.forEach((key, value) -> env.put(environmentName(key), value));
        env.put("TASKFENCE_AUTH_KEYS_BENCH_SECRET", ADMIN_KEY);
        env.put("TASKFENCE_AUTH_KEYS_BENCH_ROLE", "admin");
        env.put("TASKFENCE_WORKER_ENABLED", "false");
        env.put("TASKFENCE_DISPATCH_ENABLED", "false");
        replica = PackagedService.start("bench-submit", env, Path.of("target", "bench", "submit", "replica.log"));
        replica.awaitStatus("/q/health/ready", 200, Duration.ofSeconds(90));
    }

    @AfterAll
    static void stopIt() throws InterruptedException {
        try {
            if (replica != null) {
                ServiceLogs.printProblems(List.of(replica));
                replica.close();
            }
        } finally {
            KEYS.stop();
            SCHEMA.stop();
        }
    }

    @Test
    @Order(1)
    void singleTaskSubmissions() throws Exception {
        for (int window = 1; window <= BenchResults.submitWindows(); window++) {
            Wrk.Report run = Wrk.run(replica.uri("/api/v1/tasks"), WINDOW, SUBMIT_SCRIPT, AUTHORIZATION);
            if (run.errorAnswers() > 0) {
                fail(run.errorAnswers() + " submissions were answered 4xx or 5xx in window " + window + " (see "
                        + replica.log() + "):\n" + run.output());
            }
            System.out.printf(Locale.ROOT, "[bench] submit window %d (%d-%d s after ready): %.0f requests/s%n", window,
                    (window - 1) * WINDOW.toSeconds(), window * WINDOW.toSeconds(), run.requestsPerSecond());
            BenchResults.record("submit.single.window." + window, run.requestsPerSecond());
        }
        try (Connection db = DriverManager.getConnection(databaseUrl, PostgresSchema.USER, "")) {
            long before = settledTaskCount(db);
            Wrk.Report run = Wrk.run(replica.uri("/api/v1/tasks"), BenchResults.runTime(), SUBMIT_SCRIPT, AUTHORIZATION);
            if (run.errorAnswers() > 0) {
                fail(run.errorAnswers() + " submissions were answered 4xx or 5xx (see " + replica.log() + "):\n"
                        + run.output());
            }
            // wrk counts the answers it read before its time was up; each connection may have had one more
            // request in the service then (or one it gave up waiting for), whose row is there too. Twice that,
            // for a warm-up request that was slower than the pause settledTaskCount allows it.
            long inserted = settledTaskCount(db) - before;
            long slack = 2L * Wrk.CONNECTIONS + run.socketErrors();
            assertTrue(inserted >= run.requests() && inserted <= run.requests() + slack, String.format(Locale.ROOT,
                    "wrk counted %d created tasks, the table gained %d rows:%n%s", run.requests(), inserted, run.output()));
            System.out.printf("[bench] submit.single: wrk counted %d answers (%d socket errors), the table gained %d rows%n",
                    run.requests(), run.socketErrors(), inserted);
            BenchResults.record("submit.single", run.requestsPerSecond());
        }
    }

    @Test
    @Order(2)
    void trivialRequests() throws Exception {
        HttpResponse<String> probe = replica.get(TRIVIAL_PATH, "Authorization", "Bearer " + ADMIN_KEY);
        assertEquals(404, probe.statusCode(), probe.body());
        assertTrue(probe.body().contains("nothing is served at"), probe.body());
        Wrk.run(replica.uri(TRIVIAL_PATH), warmUp(), null, AUTHORIZATION);
        Wrk.Report run = Wrk.run(replica.uri(TRIVIAL_PATH), BenchResults.runTime(), null, AUTHORIZATION);
        // Every answer is the 404 (wrk counts them as errors); anything else is a failure.
        assertEquals(run.requests(), run.errorAnswers(), run.output());
        BenchResults.record("submit.trivial", run.requestsPerSecond());
    }

    @Test
    @Order(3)
    void bulkSubmissions() throws Exception {
        HttpResponse<String> probe = replica.post(BULK_PATH, "{\"tasks\":[{\"type\":\"noop\",\"payload\":{}}]}",
                "Authorization", "Bearer " + ADMIN_KEY);
        assertEquals(200, probe.statusCode(), probe.body());
        assertTrue(probe.body().contains("\"created\":1"), probe.body());
        Wrk.run(replica.uri(BULK_PATH), warmUp(), BULK_SCRIPT, AUTHORIZATION);
        try (Connection db = DriverManager.getConnection(databaseUrl, PostgresSchema.USER, "")) {
            long before = settledTaskCount(db);
            Wrk.Report run = Wrk.run(replica.uri(BULK_PATH), BenchResults.runTime(), BULK_SCRIPT, AUTHORIZATION);
            if (run.errorAnswers() > 0) {
                fail(run.errorAnswers() + " batches were answered 4xx or 5xx (see " + replica.log() + "):\n"
                        + run.output());
            }
            // As for single submissions: each connection may have had one more batch in the service at the end,
            // and a slow warm-up batch may land late. A batch is stored whole or not at all (one transaction),
            // so anything else than whole batches means a batch was cut short.
            long inserted = settledTaskCount(db) - before;
            long expected = run.requests() * BULK_TASKS;
            long slack = (2L * Wrk.CONNECTIONS + run.socketErrors()) * BULK_TASKS;
            assertTrue(inserted >= expected && inserted <= expected + slack && inserted % BULK_TASKS == 0,
                    String.format(Locale.ROOT, "wrk counted %d batches of %d, the table gained %d rows:%n%s",
                            run.requests(), BULK_TASKS, inserted, run.output()));
            System.out.printf("[bench] submit.bulk: wrk counted %d batches of %d (%d socket errors), the table gained "
                    + "%d rows%n", run.requests(), BULK_TASKS, run.socketErrors(), inserted);
            BenchResults.record("submit.bulk", run.requestsPerSecond() * BULK_TASKS);
        }
    }

    /** Not counted: long enough for the JIT to compile the request's path and the pools to fill, 4 to 15 s. */
    private static Duration warmUp() {
        Duration twice = BenchResults.runTime().multipliedBy(2);
        return twice.compareTo(Duration.ofSeconds(4)) < 0 ? Duration.ofSeconds(4)
                : twice.compareTo(Duration.ofSeconds(15)) > 0 ? Duration.ofSeconds(15) : twice;
    }

    /** The rows of the task table once requests still in the service have landed (two equal counts in a row). */
    private static long settledTaskCount(Connection db) {
        AtomicLong last = new AtomicLong(-1);
        return await("the task count settles").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    long now = Rows.count(db, "select count(*) from tasks");
                    return last.getAndSet(now) == now ? now : null;
                }, count -> count != null);
    }

    /** A configuration key as its environment variable, MicroProfile Config's way: upper case, '_' for the rest. */
    private static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }
}

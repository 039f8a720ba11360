package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.taskfence.jobs.FairDispatchTest;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * Issue 41's probe, as a test (DESIGN.md, "REST API", "Bulkheads"): key A owns 1,000,000 finished tasks and sends
 * text searches and counts from 25 threads for 20 s. Meanwhile key B submits single tasks one after another, one of
 * B's tasks runs a slow handler (30 s, on a 3 s worker lease: it lives on heartbeats, and must keep its lease), and
 * dispatch goes on (B's tasks run). Asserted are the bulkheads' promises, none of them a latency: every submission of
 * B is accepted, B's tasks of the flood's first half have run by its end and all of them soon after, the slow task
 * keeps its first lease, and every search ends in an answer or a 4xx/503 problem. B's latency in the flood against
 * B's latency alone is a figure, printed on one "SearchFlood" line (docs/reads.md keeps the measured ones), never a
 * bound a busy machine can break.
 */
@QuarkusTest
@TestServers
@TestProfile(FairDispatchTest.ShortQueue.class)
class SearchFloodTest {

    private static final int A_TASKS = Integer.getInteger("searchflood.tasks", 1_000_000);
    private static final int SEARCHERS = Integer.getInteger("searchflood.searchers", 25);
    private static final Duration FLOOD = Duration.ofSeconds(20);
    /** B's submissions measured alone first, for the printed comparison. */
    private static final Duration IDLE = Duration.ofSeconds(3);
    /** A search still unanswered this long after the flood is counted unanswered (before the bulkheads: 30-46 s). */
    private static final Duration GIVE_UP_AFTER = Duration.ofSeconds(60);
    private static final long SLOW_MS = 30_000;
    private static final String A = ApiKeysForTests.SUBMIT_KEY_NAME;

    @Inject
    DataSource db;

    @TestHTTPResource("/api/v1/")
    URI tasks;

    private final HttpClient client = HttpClient.newHttpClient();

    /** A million rows in the schema this class shares with others of its profile: emptied at once, as FanInTest does. */
    @AfterEach
    void emptyTheTables() {
        Sql.run(db, "truncate tasks, task_event_log, tasks_due, tasks_in_flight, tasks_off_path, tasks_waiting, "
                + "task_dependencies, task_follow_ups, dispatch_log");
    }

    @Test
    void keyAsSearchesOverAMillionTasksHoldNeitherBsSubmissionsNorLeasesNorDispatch() throws Exception {
        seedFinishedTasksOfA();
        UUID slow = submitB("{\"type\":\"sleep\",\"payload\":{\"ms\":" + SLOW_MS + "}}").id();
        await().atMost(Duration.ofSeconds(10)).until(() -> "PROCESSING".equals(status(slow)));

        List<Long> idle = new ArrayList<>();
        for (long idleEnds = System.nanoTime() + IDLE.toNanos(); System.nanoTime() < idleEnds;) {
            idle.add(submitB("{\"type\":\"noop\",\"payload\":{}}").millis());
        }
        idle.sort(null);

        ExecutorService threads = Executors.newFixedThreadPool(SEARCHERS);
        ConcurrentLinkedQueue<Search> searches = new ConcurrentLinkedQueue<>();
        long floodEnds = System.nanoTime() + FLOOD.toNanos();
        List<Future<?>> searchers = new ArrayList<>();
        for (int i = 0; i < SEARCHERS; i++) {
            boolean counts = i % 2 == 0;
            searchers.add(threads.submit(() -> {
                while (System.nanoTime() < floodEnds) {
                    searches.add(search(counts));
                }
                return null;
            }));
        }
        List<Submitted> b = new ArrayList<>();
        while (System.nanoTime() < floodEnds) {
            b.add(submitB("{\"type\":\"noop\",\"payload\":{}}"));
        }
        List<UUID> bIds = b.stream().map(Submitted::id).toList();
        // Dispatch went on: what B submitted in the flood's first half (10 s and more before its end) has run by then.
        long halfway = floodEnds - FLOOD.toNanos() / 2;
        List<UUID> firstHalf = b.stream().filter(task -> task.at() < halfway).map(Submitted::id).toList();
        long firstHalfRan = succeeded(firstHalf);
        long ranDuringTheFlood = succeeded(bIds);
        threads.shutdown();
        boolean allAnswered = threads.awaitTermination(GIVE_UP_AFTER.toSeconds(), TimeUnit.SECONDS);
        threads.shutdownNow();
        await().atMost(Duration.ofSeconds(40)).until(() -> "SUCCEEDED".equals(status(slow)));
        await().atMost(Duration.ofSeconds(60)).until(() -> succeeded(bIds) == bIds.size());

        List<Long> bMillis = b.stream().map(Submitted::millis).sorted().toList();
        long p99 = bMillis.get((int) Math.ceil(bMillis.size() * 0.99) - 1);
        List<Long> searchMillis = searches.stream().map(Search::millis).sorted().toList();
        Map<Integer, Long> statuses = searches.stream().collect(Collectors.groupingBy(Search::status, TreeMap::new,
                Collectors.counting()));
        System.out.printf("SearchFlood: %,d tasks of A; B idle: %d submissions, p50 %d ms, p99 %d ms; B in the flood: "
                + "%d submissions, p50 %d ms, p99 %d ms (%.2f× alone), max %d ms; %d of them ran in the flood; searches %d "
                + "answered (%s), p50 %d ms, max %d ms, all answered within %d s after the flood: %s; slow task: %s%n",
                A_TASKS, idle.size(), percentile(idle, 0.5), percentile(idle, 0.99), bMillis.size(),
                percentile(bMillis, 0.5), p99, (double) p99 / Math.max(1, percentile(idle, 0.99)), bMillis.getLast(),
                ranDuringTheFlood, searchMillis.size(), statuses,
                percentile(searchMillis, 0.5), searchMillis.isEmpty() ? 0 : searchMillis.getLast(),
                GIVE_UP_AFTER.toSeconds(), allAnswered, Sql.value(db, "select status || ' attempt ' || attempt || ' "
                        + "enqueues ' || enqueues from tasks where id = ?", slow));

        List<Executable> checks = new ArrayList<>();
        checks.add(() -> assertEquals(firstHalf.size(), firstHalfRan, "dispatch went on: B's tasks of the flood's "
                + "first half had all run by its end (" + ranDuringTheFlood + " of all " + bIds.size() + " had)"));
        checks.add(() -> assertEquals("SUCCEEDED attempt 1 enqueues 1", Sql.value(db, "select status || ' attempt ' "
                + "|| attempt || ' enqueues ' || enqueues from tasks where id = ?", slow),
                "the slow task ran once on its first lease, kept by its heartbeats"));
        checks.add(() -> assertEquals(0, Sql.count(db, "select count(*) from task_event_log where task_id = ? "
                + "and from_status = 'PROCESSING'", slow), "the slow task's lease never lapsed (no recovery of it)"));
        checks.add(() -> assertTrue(allAnswered, "every search was answered within " + GIVE_UP_AFTER.toSeconds()
                + " s of the flood's end"));
        checks.add(() -> assertTrue(statuses.keySet().stream().allMatch(status -> status == 200
                || (status >= 400 && status < 500) || status == 503), "an answer or a 4xx/503 problem: " + statuses));
        checks.add(() -> assertTrue(statuses.getOrDefault(200, 0L) > 0, "some searches were answered: " + statuses));
        assertAll(checks);
    }

    /**
     * A's history: finished tasks over the last 7 days, as a week of retention keeps them. Test seeding, straight
     * into the table (one statement, then analyze), not the service's writer.
     */
    private void seedFinishedTasksOfA() {
        Sql.run(db, "insert into tasks (id, type, payload, status, attempt, max_attempts, owner, created_at, updated_at, "
                + "run_at, started_at, result, last_error) "
                + "select gen_random_uuid(), (array['noop', 'sleep'])[1 + i % 2], "
                + "jsonb_build_object('order', i, 'customer', 'customer-' || (i % 5000), 'note', 'seeded task ' || i), "
                + "'SUCCEEDED', 1, 5, ?, now() - i * (interval '7 days' / ?), now() - i * (interval '7 days' / ?), "
                + "now() - i * (interval '7 days' / ?), now() - i * (interval '7 days' / ?), '{\"ok\": true}'::jsonb, "
                + "case when i % 100 = 0 then 'timeout talking to upstream ' || (i % 7) end "
                + "from generate_series(1, ?) as i", A, A_TASKS, A_TASKS, A_TASKS, A_TASKS, A_TASKS);
        Sql.run(db, "analyze tasks");
        // The seeding's gigabyte of WAL and dirty pages written out now, not under B's commits during the flood.
        Sql.run(db, "checkpoint");
    }

    /**
     * A's search or count for a text no task holds: the most a search scans. Sent with the JDK's client, which costs
     * the test's JVM (the service's too) far less CPU a request than RestAssured: the flood measures the service.
     */
    private Search search(boolean count) throws InterruptedException {
        long start = System.nanoTime();
        HttpRequest request = HttpRequest.newBuilder(tasks.resolve((count ? "tasks/count" : "tasks") + "?text=needle-nowhere"))
                .header("Authorization", "Bearer " + ApiKeysForTests.SUBMIT_KEY).timeout(GIVE_UP_AFTER).build();
        HttpResponse<Void> answer;
        try {
            answer = client.send(request, HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            return new Search(-1, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)); // no answer
        }
        Search search = new Search(answer.statusCode(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        // As a client does when told: a refusal is a request-rate matter, not one of the reads' bulkheads.
        Optional<String> retryAfter = answer.headers().firstValue("Retry-After");
        if (answer.statusCode() == 429 && retryAfter.isPresent()) {
            Thread.sleep(TimeUnit.SECONDS.toMillis(Long.parseLong(retryAfter.get())));
        }
        return search;
    }

    private static Submitted submitB(String task) {
        long start = System.nanoTime();
        String id = given().auth().oauth2(ApiKeysForTests.OTHER_SUBMIT_KEY).contentType("application/json").body(task)
                .post("/api/v1/tasks").then().statusCode(201).extract().path("id");
        return new Submitted(UUID.fromString(id), start, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private long succeeded(List<UUID> ids) {
        return Sql.count(db, "select count(*) from tasks where id = any(?) and status = 'SUCCEEDED'",
                (Object) ids.toArray(UUID[]::new));
    }

    private String status(UUID id) {
        return Sql.value(db, "select status from tasks where id = ?", id);
    }

    private static long percentile(List<Long> sorted, double share) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * share) - 1));
    }

    private record Search(int status, long millis) {
    }

    private record Submitted(UUID id, long at, long millis) {
    }
}

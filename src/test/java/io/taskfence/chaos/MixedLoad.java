package io.taskfence.chaos;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Steady mixed client traffic while faults come and go: two threads submitting one task a request, one
 * submitting batches of 25, and one cancelling recent tasks and retrying dead or cancelled ones. All but one
 * single submission in ten carry an idempotency key, so that one whose answer a fault swallowed can be sent
 * again without making a second task; the others are marked in their payload, so that the checker can count
 * what each made. Tasks are noops, short sleeps, flaky ones that fail once and then succeed,
 * ones that fail until dead, and noops due a few seconds later. A fifth thread submits follow-ups
 * ({@link FollowUpRequests}): dependency chains, diamonds and fan-ins, batches with a then task, and callbacks to
 * the run's {@link CallbackReceiver}, about one request a second.
 */
final class MixedLoad implements AutoCloseable {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ReplicaCluster cluster;
    private final LiveReplicas replicas;
    private final Submissions submissions;
    private final long seed;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong keys = new AtomicLong();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Thread> threads = new ArrayList<>();
    private final FollowUpRequests followUps;

    MixedLoad(ReplicaCluster cluster, LiveReplicas replicas, Submissions submissions, long seed, String callbackUrl) {
        this.cluster = cluster;
        this.replicas = replicas;
        this.submissions = submissions;
        this.seed = seed;
        this.followUps = new FollowUpRequests(this::key, callbackUrl);
    }

    void start() {
        threads.add(Thread.ofPlatform().name("chaos-submit-1").start(() -> singles(new Random(seed + 1))));
        threads.add(Thread.ofPlatform().name("chaos-submit-2").start(() -> singles(new Random(seed + 2))));
        threads.add(Thread.ofPlatform().name("chaos-batch").start(() -> batches(new Random(seed + 3))));
        threads.add(Thread.ofPlatform().name("chaos-cancel-retry").start(() -> cancelsAndRetries(new Random(seed + 4))));
        threads.add(Thread.ofPlatform().name("chaos-follow-ups").start(() -> followUps(new Random(seed + 6))));
    }

    /** Stops the traffic and waits for its threads (each finishes the request in hand). */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /**
     * Sends every request whose answer was lost again, with the same idempotency keys, until each has one or
     * {@code atMost} passes (the faults are over by then, so a few rounds do).
     */
    void resolveUnanswered(Duration atMost) throws InterruptedException {
        long end = System.nanoTime() + atMost.toNanos();
        Random random = new Random(seed + 5);
        while (System.nanoTime() < end) {
            Optional<Submissions.Unanswered> request = submissions.takeUnanswered();
            if (request.isEmpty()) {
                return;
            }
            if (!resend(request.get(), random)) {
                Thread.sleep(500);
            }
        }
    }

    private void singles(Random random) {
        while (running.get()) {
            if (random.nextInt(5) == 0) {
                Optional<Submissions.Unanswered> request = submissions.takeUnanswered();
                if (request.isPresent()) {
                    resend(request.get(), random);
                }
            }
            if (random.nextInt(10) == 0) {
                keyless(random);
            } else {
                Optional<Instant> runAt = runAt(random);
                String key = key();
                send(new Submissions.Unanswered("/api/v1/tasks", task(random, runAt, Optional.empty()),
                        Optional.of(key)), random, runAt);
            }
            pause(40);
        }
    }

    private void batches(Random random) {
        while (running.get()) {
            StringBuilder body = new StringBuilder("{\"tasks\":[");
            for (int i = 0; i < 25; i++) {
                body.append(i == 0 ? "" : ",").append(task(random, runAt(random), Optional.of(key())));
            }
            send(new Submissions.Unanswered("/api/v1/tasks/batch", body.append("]}").toString(), Optional.empty()),
                    random, Optional.empty());
            pause(1_000);
        }
    }

    /**
     * One structure with follow-ups a request, 0.5 to 1.5 s apart (about 8 tasks a second, a tenth of the
     * rest of the load, plus their callbacks).
     */
    private void followUps(Random random) {
        while (running.get()) {
            send(followUps.next(random), random, Optional.empty());
            pause(500 + random.nextInt(1_000));
        }
    }

    private void cancelsAndRetries(Random random) {
        for (int round = 0; running.get(); round++) {
            PackagedService replica = replicas.pick(random);
            try {
                Optional<UUID> task = submissions.recentTask();
                if (task.isPresent()) {
                    int status = post(replica, "/api/v1/tasks/" + task.get() + "/cancel", "", Optional.empty()).statusCode();
                    submissions.cancel(status == 200);
                }
                if (round % 4 == 0) {
                    Optional<UUID> finished = deadOrCancelled();
                    if (finished.isPresent()) {
                        int status = post(replica, "/api/v1/tasks/" + finished.get() + "/retry", "", Optional.empty())
                                .statusCode();
                        submissions.retry(status == 200);
                    }
                }
            } catch (IOException | SQLException e) {
                // a fault; cancels and retries are not counted as submissions, so nothing to keep
            } catch (InterruptedException e) {
                return;
            }
            pause(250);
        }
    }

    /**
     * A submission without an idempotency key, as many clients send them: a noop whose payload carries a
     * marker of its own, so that the checker can count the tasks one such submission made. Its answer, if lost,
     * cannot be asked for again.
     */
    private void keyless(Random random) {
        String marker = "once-" + seed + "-" + keys.incrementAndGet();
        try {
            HttpResponse<String> answer = post(replicas.pick(random), "/api/v1/tasks",
                    "{\"type\":\"noop\",\"payload\":{\"once\":\"" + marker + "\"}}", Optional.empty());
            if (answer.statusCode() == 201) {
                submissions.accepted(UUID.fromString(JSON.readTree(answer.body()).get("id").asText()), Optional.empty());
            } else {
                submissions.refused(answer.statusCode(), marker, mayHaveBeenMade(answer.body()));
            }
        } catch (IOException e) {
            submissions.unansweredKeyless(marker);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a submission; records what it was told. An answer lost is kept to be sent again. */
    private void send(Submissions.Unanswered request, Random random, Optional<Instant> runAt) {
        try {
            HttpResponse<String> answer = post(replicas.pick(random), request.path(), request.body(),
                    request.idempotencyKey());
            record(request, answer, runAt, false);
        } catch (IOException e) {
            submissions.unanswered(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends a request again; false if its answer is still unknown (it is then kept again). */
    private boolean resend(Submissions.Unanswered request, Random random) {
        try {
            HttpResponse<String> answer = post(replicas.pick(random), request.path(), request.body(),
                    request.idempotencyKey());
            return record(request, answer, runAtOf(request), true);
        } catch (IOException e) {
            return requeue(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return requeue(request);
        }
    }

    private boolean requeue(Submissions.Unanswered request) {
        submissions.requeue(request);
        return false;
    }

    /**
     * Records an answer. A 503 to a request sent again is no answer (the first sending may have stored its
     * tasks): it is kept again. True if the outcome is now known.
     */
    private boolean record(Submissions.Unanswered request, HttpResponse<String> answer, Optional<Instant> runAt,
            boolean again) throws IOException {
        int status = answer.statusCode();
        if (again && status >= 500) {
            submissions.requeue(request);
            return false;
        }
        if (request.path().endsWith("/batch")) {
            JsonNode tasks = JSON.readTree(request.body()).get("tasks");
            Optional<String> thenKey = Optional.ofNullable(JSON.readTree(request.body()).path("then")
                    .get("idempotencyKey")).map(JsonNode::asText);
            if (status != 200) {
                for (JsonNode task : tasks) {
                    submissions.refused(status, task.get("idempotencyKey").asText(), mayHaveBeenMade(answer.body()));
                }
                thenKey.ifPresent(key -> submissions.refused(status, key, mayHaveBeenMade(answer.body())));
                return true;
            }
            JsonNode batchAnswer = JSON.readTree(answer.body());
            thenKey.ifPresent(key -> recordThen(key, batchAnswer.path("batch")));
            JsonNode items = batchAnswer.get("items");
            for (int i = 0; i < items.size(); i++) {
                JsonNode item = items.get(i);
                JsonNode task = tasks.get(i);
                int itemStatus = item.get("status").asInt();
                if (itemStatus == 201 || itemStatus == 200) {
                    submissions.accepted(UUID.fromString(item.get("task").get("id").asText()),
                            task.hasNonNull("runAt") ? Optional.of(Instant.parse(task.get("runAt").asText()))
                                    : Optional.empty());
                } else {
                    submissions.refused(itemStatus, task.get("idempotencyKey").asText(),
                            mayHaveBeenMade(item.path("problem").toString()));
                }
            }
            return true;
        }
        if (status == 201 || status == 200) {
            submissions.accepted(UUID.fromString(JSON.readTree(answer.body()).get("id").asText()), runAt);
        } else {
            submissions.refused(status, request.idempotencyKey().orElseThrow(), mayHaveBeenMade(answer.body()));
        }
        return true;
    }

    /**
     * A batch request's then task: accepted with the batch the answer shows, or, when the answer has none (every
     * item was refused), not stored, as the batch it would have made.
     */
    private void recordThen(String key, JsonNode batch) {
        if (batch.hasNonNull("thenTaskId")) {
            UUID then = UUID.fromString(batch.get("thenTaskId").asText());
            submissions.accepted(then, Optional.empty());
            submissions.thenAccepted(key, then);
        } else {
            submissions.thenRefused(key);
        }
    }

    /**
     * Whether a refusal said the change may or may not have been made (the service's answer when the connection
     * broke during the commit): any other refusal says nothing was changed, and the checker holds it to that.
     */
    private static boolean mayHaveBeenMade(String problem) {
        return problem.contains("may or may not have been made");
    }

    private static Optional<Instant> runAtOf(Submissions.Unanswered request) throws IOException {
        JsonNode body = JSON.readTree(request.body());
        return body.hasNonNull("runAt") ? Optional.of(Instant.parse(body.get("runAt").asText())) : Optional.empty();
    }

    private HttpResponse<String> post(PackagedService replica, String path, String json, Optional<String> key)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(replica.uri(path)).timeout(REQUEST_TIMEOUT)
                .header("Authorization", "Bearer " + ReplicaCluster.ADMIN_KEY)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        key.ifPresent(k -> request.header("Idempotency-Key", k));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A random DEAD or CANCELLED task, read from the table (the client would list them). */
    private Optional<UUID> deadOrCancelled() throws SQLException {
        try (Connection db = cluster.database(); PreparedStatement query = db.prepareStatement(
                "select id from tasks where status in ('DEAD', 'CANCELLED') and idempotency_key like 'chaos-%' "
                        + "order by random() limit 1");
                ResultSet row = query.executeQuery()) {
            return row.next() ? Optional.of(row.getObject(1, UUID.class)) : Optional.empty();
        }
    }

    private String key() {
        return "chaos-" + seed + "-" + keys.incrementAndGet();
    }

    /** A noop due 2 to 10 s from now for one task in 20; else none (due at once). */
    private static Optional<Instant> runAt(Random random) {
        return random.nextInt(20) == 0 ? Optional.of(Instant.now().plusSeconds(2 + random.nextInt(9))) : Optional.empty();
    }

    /** A task's JSON; {@code key} goes in for a batch's task (a single submission sends it as a header). */
    private static String task(Random random, Optional<Instant> runAt, Optional<String> key) {
        String fields;
        if (runAt.isPresent()) {
            fields = "\"type\":\"noop\",\"payload\":{\"later\":true},\"runAt\":\"" + runAt.get() + "\"";
        } else {
            int kind = random.nextInt(100);
            if (kind < 45) {
                fields = "\"type\":\"noop\",\"payload\":{\"n\":" + random.nextInt(1_000) + "}";
            } else if (kind < 75) {
                fields = "\"type\":\"sleep\",\"payload\":{\"ms\":" + (50 + random.nextInt(350)) + "}";
            } else if (kind < 95) {
                fields = "\"type\":\"flaky\",\"payload\":{\"failTimes\":1},\"maxAttempts\":3";
            } else {
                fields = "\"type\":\"flaky\",\"payload\":{\"failTimes\":5},\"maxAttempts\":2";
            }
            fields += ",\"priority\":" + (random.nextInt(11) - 5);
        }
        return "{" + fields + key.map(k -> ",\"idempotencyKey\":\"" + k + "\"").orElse("") + "}";
    }

    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join();
        }
    }
}

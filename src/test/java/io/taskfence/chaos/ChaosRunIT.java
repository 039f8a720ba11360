package io.taskfence.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * The long fault run (issue 15, item 4; {@code scripts/dev.sh chaos [minutes]}): three packaged replicas on a
 * Redis Sentinel group and a cut-able path to PostgreSQL, under steady mixed load ({@link MixedLoad}) and a
 * schedule firing every 5 s, while a fault ({@link FaultKind}) is injected and healed every 20 to 40 s. Then
 * the load stops, every task drains, and the {@link InvariantChecker} reads the table and the history: no task
 * lost, no stale-token write, no transition off the state machine, a task run twice only after its lease
 * expired (counted), and every follow-up (a dependent's release or cancel, a batch's then task, a callback task to
 * the run's {@link CallbackReceiver}) done once, none left in {@code task_follow_ups}. The summary is printed and
 * written to {@code target/chaos/}.
 *
 * <p>Runs only when {@code -Dchaos.minutes=N} is given (failsafe passes Maven's {@code -D} properties on), so
 * that a plain {@code mvnw verify} skips it at no cost; {@code -Dchaos.seed} replays a run's choices, and
 * {@code -Dchaos.faults=REDIS_FAILOVER,REPLICA_KILL} limits the faults to those kinds.
 */
@EnabledIfSystemProperty(named = "chaos.minutes", matches = "[1-9][0-9]*")
class ChaosRunIT {

    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);
    private static final String SCHEDULE = "chaos-tick";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void underFaultsEveryTaskFinishesNoStaleWriteCommitsAndEveryTransitionIsAnEdge() throws Exception {
        Duration run = Duration.ofMinutes(Long.getLong("chaos.minutes"));
        long seed = Long.getLong("chaos.seed", new Random().nextLong() & Long.MAX_VALUE);
        say("chaos run of %d min, seed %d (replay: -Dchaos.seed=%d)", run.toMinutes(), seed, seed);
        try (CallbackReceiver callbacks = CallbackReceiver.start();
                ReplicaCluster cluster = ReplicaCluster.startWithSentinelsAndPostgresPath(3, Map.of(
                        // Messages lost with a flush or a failover come back after this long in ENQUEUED, not a minute.
                        "TASKFENCE_RECOVERY_ENQUEUED_TIMEOUT", "5s",
                        // The load's callbacks go to the receiver on 127.0.0.1, which an IP literal entry allows.
                        "TASKFENCE_HTTP_ALLOWED_HOSTS", callbacks.allowedHost()))) {
            say("cluster %s is ready", cluster);
            PackagedService first = cluster.replicas().getFirst();
            HttpResponse<String> schedule = cluster.post(first, "/api/v1/schedules", "{\"name\":\"" + SCHEDULE
                    + "\",\"cron\":\"*/5 * * * * ?\",\"type\":\"noop\",\"payload\":{\"tick\":true}}");
            assertTrue(schedule.statusCode() == 201, schedule.body());

            LiveReplicas replicas = new LiveReplicas(cluster);
            Submissions submissions = new Submissions();
            Faults faults = new Faults(cluster, replicas, seed);
            List<Faults.Planned> plan = faults.plan(run, kinds());
            say("faults planned: %s", plan);
            List<InjectedFault> injected = new ArrayList<>();
            try (MixedLoad load = new MixedLoad(cluster, replicas, submissions, seed, callbacks.url())) {
                long start = System.nanoTime();
                load.start();
                for (Faults.Planned fault : plan) {
                    sleepUntil(start, fault.at());
                    say("injecting %s", fault.kind().description());
                    InjectedFault done = faults.inject(fault, Duration.ofNanos(System.nanoTime() - start));
                    injected.add(done);
                    say("%s", done);
                }
                sleepUntil(start, run);
                load.stop();
                say("load stopped: %d tasks accepted, refused %s, %d answers lost", submissions.accepted().size(),
                        submissions.refusedByStatus(), submissions.unansweredSeen());
                deleteSchedule(cluster, replicas);
                load.resolveUnanswered(Duration.ofMinutes(2));
            }

            InvariantChecker checker = new InvariantChecker(cluster);
            long drainStart = System.nanoTime();
            long unfinished = checker.unfinished(submissions);
            while (unfinished > 0 && System.nanoTime() - drainStart < DRAIN_TIMEOUT.toNanos()) {
                Thread.sleep(2_000);
                unfinished = checker.unfinished(submissions);
            }
            Duration drain = Duration.ofNanos(System.nanoTime() - drainStart);
            Summary summary = checker.check(seed, run, injected, submissions, callbacks, drain);
            String table = summary.table();
            System.out.println(table);
            Path out = Path.of("target", "chaos", "summary-" + seed + ".md");
            Files.createDirectories(out.getParent());
            Files.writeString(out, table + "\nlogs: " + cluster + "\n");
            Files.writeString(out.resolveSibling("last-summary.md"), table);
            assertTrue(submissions.stillUnanswered() == 0, submissions.stillUnanswered()
                    + " submissions still have no answer after the faults ended");
            assertTrue(summary.passed(), "the chaos run broke an invariant:\n" + table);
        }
    }

    /** Every kind of fault, or those {@code -Dchaos.faults} names (comma-separated), to chase one kind's trouble. */
    private static List<FaultKind> kinds() {
        String named = System.getProperty("chaos.faults", "");
        return named.isBlank() ? List.of(FaultKind.values())
                : Arrays.stream(named.split(",")).map(String::trim).map(FaultKind::valueOf).toList();
    }

    /** Deletes the schedule so that it makes no task during the drain; tries again while a fault's effects last. */
    private static void deleteSchedule(ReplicaCluster cluster, LiveReplicas replicas) throws Exception {
        Random random = new Random();
        for (int i = 0; i < 60; i++) {
            try {
                PackagedService replica = replicas.pick(random);
                int status = replica.get("/api/v1/schedules/" + SCHEDULE, "Authorization",
                        "Bearer " + ReplicaCluster.ADMIN_KEY).statusCode();
                if (status == 404) {
                    return;
                }
                HttpResponse<String> deleted = HTTP.send(HttpRequest.newBuilder(replica.uri("/api/v1/schedules/"
                        + SCHEDULE)).timeout(Duration.ofSeconds(5)).DELETE()
                        .header("Authorization", "Bearer " + ReplicaCluster.ADMIN_KEY).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (deleted.statusCode() == 204 || deleted.statusCode() == 404) {
                    return;
                }
            } catch (IOException e) {
                // try again
            }
            Thread.sleep(1_000);
        }
        throw new IllegalStateException("could not delete the schedule " + SCHEDULE);
    }

    private static void sleepUntil(long start, Duration at) throws InterruptedException {
        long left = at.toMillis() - Duration.ofNanos(System.nanoTime() - start).toMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }

    private static void say(String format, Object... arguments) {
        System.out.printf("[chaos %tT] %s%n", System.currentTimeMillis(), String.format(format, arguments));
    }
}

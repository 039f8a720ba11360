package io.taskfence.clients;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.taskfence.client.TaskfenceClient;
import io.taskfence.client.Worker;
import io.taskfence.testing.PackagedService;
import io.taskfence.testing.ReplicaCluster;

/**
 * Remote workers in two languages against three packaged replicas (issue 28's "Done when"): the Python example
 * (examples/python/worker.py, Debian's python3, the client on PYTHONPATH) and the Java example
 * (examples/java/ResizeWorker.java, the client of clients/java) share 2,000 tasks of a remote type while a replica is
 * killed (kill -9); and a worker paused (SIGSTOP) past its lease is superseded by another, refused on waking, and its
 * result never stored.
 */
class RemoteWorkersIT {

    private static final int TASKS = 2_000;

    @Test
    void aPythonAndAJavaWorkerFinishTwoThousandTasksWhileAReplicaIsKilled() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(3, RemoteTypeSettings.ENVIRONMENT)) {
            String urls = cluster.replicas().stream().map(replica -> replica.uri("/").toString())
                    .collect(Collectors.joining(","));
            Path logs = Files.createTempDirectory("remote-workers");
            Process python = start(pythonExample(), urls, "python-it", logs.resolve("python.log"));
            Process java = start(javaExample(), urls, "java-it", logs.resolve("java.log"));
            try {
                PackagedService first = cluster.replicas().getFirst();
                for (int batch = 0; batch < TASKS / 1_000; batch++) {
                    StringBuilder body = new StringBuilder("{\"tasks\":[");
                    for (int i = 0; i < 1_000; i++) {
                        body.append(i == 0 ? "" : ",").append("{\"type\":\"resize\",\"payload\":{\"width\":")
                                .append(batch * 1_000 + i + 1).append("}}");
                    }
                    assertEquals(200, cluster.post(first, "/api/v1/tasks/batch", body.append("]}").toString()).statusCode());
                }
                await("a fifth of the tasks done").atMost(Duration.ofSeconds(120))
                        .until(() -> count(cluster, "select count(*) from tasks where status = 'SUCCEEDED'") >= TASKS / 5);
                PackagedService victim = cluster.replicas().getLast();
                victim.signal("KILL");
                victim.process().waitFor();

                await("every task done").atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(500))
                        .until(() -> count(cluster, "select count(*) from tasks where status = 'SUCCEEDED'") == TASKS);
                assertEquals(0, count(cluster, "select count(*) from tasks where status <> 'SUCCEEDED'"), "none lost");
                assertEquals(0, count(cluster, "select count(*) from (select task_id from task_events where "
                        + "to_status = 'SUCCEEDED' group by task_id having count(*) <> 1) as twice"),
                        "each task succeeded once: one claim's end was stored, no other");
                assertEquals(0, count(cluster, "select count(*) from tasks where (result->>'fencingToken')::bigint "
                        + "<> fencing_token or (result->>'width')::int <> (payload->>'width')::int / 2"),
                        "each result is the one of the claim that held the task, for its own payload");
                Map<String, Long> byWorker = countsBy(cluster, "select result->>'by', count(*) from tasks group by 1");
                assertTrue(byWorker.getOrDefault("python", 0L) > 0 && byWorker.getOrDefault("java", 0L) > 0,
                        "both workers ran tasks: " + byWorker);
                System.out.println("tasks by worker: " + byWorker + "; claims beyond one per task: "
                        + count(cluster, "select coalesce(sum(fencing_token - 1), 0) from tasks"));
            } finally {
                signal(python, "TERM"); // both at once: each may be in a claim's wait (20 s) before it drains
                signal(java, "TERM");
                awaitEnd(python, logs.resolve("python.log"));
                awaitEnd(java, logs.resolve("java.log"));
            }
        }
    }

    @Test
    void aWorkerPausedPastItsLeaseIsSupersededAndItsResultIsNeverStored() throws Exception {
        try (ReplicaCluster cluster = ReplicaCluster.start(1, RemoteTypeSettings.ENVIRONMENT)) {
            String url = cluster.replicas().getFirst().uri("/").toString();
            Path log = Files.createTempFile("stalling-worker", ".log");
            ProcessBuilder stalling = new ProcessBuilder(RemoteTypeSettings.PYTHON,
                    Path.of("src", "test", "resources", "stalling_worker.py").toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            stalling.environment().putAll(Map.of("TASKFENCE_URL", url, "TASKFENCE_WORKER_KEY", RemoteTypeSettings.WORKER_KEY,
                    "TASKFENCE_TYPE", RemoteTypeSettings.OTHER_TYPE, "PYTHONDONTWRITEBYTECODE", "1",
                    "PYTHONPATH", RemoteTypeSettings.PYTHON_CLIENT.toString()));
            Process paused = stalling.start();
            try {
                String id = cluster.post(cluster.replicas().getFirst(), "/api/v1/tasks",
                        "{\"type\":\"thumbnail\",\"payload\":{}}").body().replaceAll(".*\"id\":\"([0-9a-f-]{36})\".*", "$1");
                await("the worker claimed the task").atMost(Duration.ofSeconds(30))
                        .until(() -> Files.readString(log).contains("claimed " + id));
                signal(paused, "STOP");

                // Another worker takes the task over once the paused one's lease (3 s) has run out.
                TaskfenceClient client = TaskfenceClient.of(url, RemoteTypeSettings.WORKER_KEY);
                Worker other = new Worker(client, List.of(RemoteTypeSettings.OTHER_TYPE), job -> Map.of("by", "other"),
                        2, Duration.ofSeconds(1), "other", Duration.ofSeconds(5));
                ExecutorService thread = Executors.newSingleThreadExecutor();
                Future<?> running = thread.submit(() -> {
                    other.run();
                    return null;
                });
                await("the task done by the other worker").atMost(Duration.ofSeconds(60)).until(() ->
                        count(cluster, "select count(*) from tasks where status = 'SUCCEEDED'") == 1);
                other.stop();
                running.get(30, TimeUnit.SECONDS);
                thread.shutdown();

                signal(paused, "CONT");
                assertTrue(paused.waitFor(30, TimeUnit.SECONDS), "the woken worker ended");
                String said = Files.readString(log);
                assertTrue(said.contains("heartbeat 409: claim of task " + id + " attempt 1 no longer holds"), said);
                assertTrue(said.contains("complete 409: "), said);
                assertEquals(0, paused.exitValue(), said);
                assertEquals(Map.of("other", 1L), countsBy(cluster, "select result->>'by', count(*) from tasks group by 1"),
                        "the paused worker's result was never stored");
                assertEquals(2, count(cluster, "select fencing_token from tasks"), "the takeover drew the next token");
                assertEquals(1, count(cluster, "select count(*) from task_events where to_status = 'SUCCEEDED'"));
                assertEquals(0, count(cluster, "select count(*) from task_events where to_status = 'SUCCEEDED' and "
                        + "worker like 'remote:remoteworker:stalling/%'"), "no success of the paused worker's claim");
            } finally {
                paused.destroyForcibly();
            }
        }
    }

    private static List<String> pythonExample() {
        return List.of(RemoteTypeSettings.PYTHON, Path.of("examples", "python", "worker.py").toString());
    }

    /** The Java example as a single-file program, on this JVM's classpath (the client's classes and Jackson). */
    private static List<String> javaExample() {
        String javaBinary = ProcessHandle.current().info().command().orElse("java");
        return List.of(javaBinary, "-cp", System.getProperty("java.class.path"),
                Path.of("examples", "java", "ResizeWorker.java").toString());
    }

    private static Process start(List<String> command, String urls, String name, Path log) throws IOException {
        ProcessBuilder worker = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> environment = new HashMap<>(Map.of("TASKFENCE_URL", urls,
                "TASKFENCE_WORKER_KEY", RemoteTypeSettings.WORKER_KEY, "TASKFENCE_TYPE", RemoteTypeSettings.TYPE,
                "TASKFENCE_WORKER_NAME", name, "TASKFENCE_CONCURRENCY", "8", "PYTHONDONTWRITEBYTECODE", "1",
                "PYTHONPATH", RemoteTypeSettings.PYTHON_CLIENT.toString())); // the client, as if installed (PythonClientIT)
        worker.environment().putAll(environment);
        return worker.start();
    }

    /** After SIGTERM: the worker drains and exits; its log's end is printed for the record. */
    private static void awaitEnd(Process worker, Path log) throws Exception {
        boolean ended = worker.waitFor(40, TimeUnit.SECONDS);
        if (!ended) {
            worker.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(log);
        System.out.println(log.getFileName() + " (last lines):\n" + String.join("\n",
                lines.subList(Math.max(0, lines.size() - 15), lines.size())));
        assertTrue(ended, log.getFileName() + ": the worker did not end within its drain after SIGTERM");
    }

    private static void signal(Process process, String signal) throws IOException, InterruptedException {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor());
    }

    private static long count(ReplicaCluster cluster, String sql) throws SQLException {
        try (Connection connection = cluster.database(); PreparedStatement select = connection.prepareStatement(sql);
                ResultSet row = select.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    private static Map<String, Long> countsBy(ReplicaCluster cluster, String sql) throws SQLException {
        Map<String, Long> counts = new HashMap<>();
        try (Connection connection = cluster.database(); PreparedStatement select = connection.prepareStatement(sql);
                ResultSet row = select.executeQuery()) {
            while (row.next()) {
                counts.put(row.getString(1), row.getLong(2));
            }
        }
        return counts;
    }
}

package io.taskfence.generated.smoke;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service as operators run it: its packaged jar (the root project's {@code target/quarkus-app/quarkus-run.jar},
 * system property {@code taskfence.jar}) in the prod profile, on the local PostgreSQL and Redis with a schema and a
 * key prefix of its own (both removed on close, which tries every step and reports each that failed), a submit key
 * and a worker key for the remote type {@code resize}. Its ports are chosen by the service itself (0) and read from
 * its log, so that no other process can take them first. A test JVM that dies takes the replica with it (a shutdown
 * hook), rather than leaving it running leader jobs on a schema that is gone.
 */
final class PackagedReplica implements AutoCloseable {

    static final String SUBMIT_KEY = "tf-gen-sub-7dfb436a66e8bf0e6470ba22fdd194d7";
    static final String WORKER_KEY = "tf-gen-wrk-ac52141db2d34113b1197b62118d1284";
    static final String REMOTE_TYPE = "resize";

    private static final String DATABASE_URL = System.getenv().getOrDefault("TASKFENCE_TEST_DATABASE_URL",
            "jdbc:postgresql://127.0.0.1:5432/test");
    private static final String DATABASE_USER = System.getenv().getOrDefault("TASKFENCE_TEST_DATABASE_USER", "postgres");
    private static final String REDIS_URL = System.getenv().getOrDefault("QUARKUS_REDIS_HOSTS", "redis://127.0.0.1:6379");
    private static final Pattern LISTENING = Pattern.compile(
            "Listening on: http://[^\\s\"]+?:(\\d+)\\. Management interface listening on http://[^\\s\"]+?:(\\d+)\\.");

    private final String name = "taskfence_generated_" + UUID.randomUUID().toString().substring(0, 8);
    private final Path log;
    private Process process;
    private Thread killOnExit;
    private URI api;

    private PackagedReplica(Path log) {
        this.log = log;
    }

    /** Starts the replica and waits until it is ready (at most {@code atMost}); its output goes to {@code log}. */
    static PackagedReplica start(Path log, Duration atMost) throws Exception {
        Path jar = Path.of(System.getProperty("taskfence.jar", "../../target/quarkus-app/quarkus-run.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build the service first (`./mvnw package` at the root)");
        }
        Files.createDirectories(log.getParent());
        PackagedReplica replica = new PackagedReplica(log);
        try {
            replica.sql("create schema " + replica.name);
            replica.launch(jar);
            replica.awaitReady(atMost);
            return replica;
        } catch (Exception | Error e) {
            try {
                replica.close();
            } catch (Exception cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** The API's root, e.g. {@code http://127.0.0.1:41234}. */
    URI api() {
        return api;
    }

    private void launch(Path jar) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-jar", jar.toAbsolutePath().toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(Map.ofEntries(
                Map.entry("QUARKUS_HTTP_PORT", "0"),
                Map.entry("QUARKUS_MANAGEMENT_PORT", "0"),
                Map.entry("QUARKUS_DATASOURCE_JDBC_URL", DATABASE_URL + "?currentSchema=" + name),
                Map.entry("QUARKUS_DATASOURCE_USERNAME", DATABASE_USER),
                Map.entry("QUARKUS_FLYWAY_SCHEMAS", name),
                Map.entry("QUARKUS_REDIS_HOSTS", REDIS_URL),
                Map.entry("TASKFENCE_KEY_PREFIX", name),
                Map.entry("TASKFENCE_TYPES_RESIZE_REMOTE", "true"),
                Map.entry("TASKFENCE_AUTH_KEYS_SUBMITTER_SECRET", SUBMIT_KEY),
                Map.entry("TASKFENCE_AUTH_KEYS_REMOTEWORKER_SECRET", WORKER_KEY),
                Map.entry("TASKFENCE_AUTH_KEYS_REMOTEWORKER_ROLE", "worker"),
                Map.entry("TASKFENCE_AUTH_KEYS_REMOTEWORKER_TYPES", REMOTE_TYPE)));
        process = builder.start();
        killOnExit = new Thread(process::destroyForcibly, name + "-kill");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** Reads the ports from the log once it listens, then polls readiness (the schema is migrated by then). */
    private void awaitReady(Duration atMost) throws Exception {
        Instant deadline = Instant.now().plus(atMost);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI ready = null;
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the replica exited (" + process.waitFor() + "); see " + log);
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the replica was not ready within " + atMost + "; see " + log);
            }
            if (ready == null) {
                Matcher listening = LISTENING.matcher(Files.readString(log));
                if (listening.find()) {
                    api = URI.create("http://127.0.0.1:" + listening.group(1));
                    ready = URI.create("http://127.0.0.1:" + listening.group(2) + "/q/health/ready");
                }
            } else if (status(http, ready) == 200) {
                return;
            }
            Thread.sleep(200);
        }
    }

    private static int status(HttpClient http, URI uri) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return -1;
        }
    }

    /** Stops the replica, then removes its schema and its Redis keys: each step tried, the first failure thrown. */
    @Override
    public void close() throws Exception {
        List<Exception> failures = new ArrayList<>();
        if (process != null) {
            attempt(failures, () -> {
                process.destroyForcibly();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the replica did not stop within 30 s; see " + log);
                }
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            });
        }
        attempt(failures, () -> sql("drop schema if exists " + name + " cascade"));
        attempt(failures, () -> {
            List<String> keys = redisCli("--scan", "--pattern", name + ":*");
            for (int from = 0; from < keys.size(); from += 500) {
                List<String> delete = new ArrayList<>(List.of("DEL"));
                delete.addAll(keys.subList(from, Math.min(keys.size(), from + 500)));
                redisCli(delete.toArray(String[]::new));
            }
        });
        if (!failures.isEmpty()) {
            Exception first = failures.getFirst();
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void attempt(List<Exception> failures, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            failures.add(e);
        }
    }

    private void sql(String statement) throws SQLException {
        try (Connection connection = DriverManager.getConnection(DATABASE_URL, DATABASE_USER, "");
                Statement executed = connection.createStatement()) {
            executed.execute(statement);
        }
    }

    /** Runs {@code redis-cli} (installed with Redis) against the replica's Redis; its output's lines. */
    private static List<String> redisCli(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-u", REDIS_URL));
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("redis-cli", ".out");
        try {
            Process cli = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!cli.waitFor(30, TimeUnit.SECONDS)) {
                cli.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not end within 30 s");
            }
            List<String> lines = Files.readAllLines(output);
            if (cli.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + lines);
            }
            return lines;
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
